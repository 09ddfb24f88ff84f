package uml

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// guestTmp is where the guest mounts its own tmpfs, hiding the host's.
const guestTmp = "/tmp"

// boot is one guest run's host-side state: its private directories and
// the files the guest reads.
type boot struct {
	info     Info
	spec     Spec
	stateDir string // config, init script, status; mounted read-write in the guest
	memDir   string // UML's TMPDIR for its memory file
	init     string
}

// newBoot creates the run's directories and writes the guest's config and
// init script. The caller must call cleanup.
func newBoot(info Info, spec Spec) (*boot, error) {
	stateDir, err := os.MkdirTemp("", "svl-uml-")
	if err != nil {
		return nil, fmt.Errorf("make guest state dir: %w", err)
	}
	b := &boot{info: info, spec: spec, stateDir: stateDir, memDir: stateDir}
	if isTmpfs("/dev/shm") {
		if dir, err := os.MkdirTemp("/dev/shm", "svl-uml-"); err == nil {
			b.memDir = dir
		}
	}
	if err := writeJSON(filepath.Join(stateDir, configFile), b.config()); err != nil {
		return nil, errors.Join(fmt.Errorf("write guest config: %w", err), b.cleanup())
	}
	if b.init, err = writeInitScript(stateDir, spec.InitBinary); err != nil {
		return nil, errors.Join(err, b.cleanup())
	}
	return b, nil
}

// dirs are the run's host directories.
func (b *boot) dirs() []string {
	if b.memDir == b.stateDir {
		return []string{b.stateDir}
	}
	return []string{b.stateDir, b.memDir}
}

// config is what the guest's init is told.
func (b *boot) config() guestConfig {
	cfg := guestConfig{
		KernelRelease: b.info.Version, StateDir: b.stateDir, ModuleDir: b.info.ModuleDir, Modules: b.spec.Modules,
		Binary: b.spec.Binary, Args: b.spec.Args, Env: b.spec.Env, WorkDir: b.spec.WorkDir,
	}
	for _, bin := range []string{b.spec.Binary, b.spec.InitBinary} {
		dir := filepath.Dir(bin)
		if strings.HasPrefix(dir+"/", guestTmp+"/") && !containsString(cfg.ReadOnlyDirs, dir) {
			cfg.ReadOnlyDirs = append(cfg.ReadOnlyDirs, dir)
		}
	}
	return cfg
}

// kernelArgs is the UML command line: hostfs root read-only, our init,
// the console on fd 1 and the program's stdout and stderr on serial lines
// 0 and 1 (fds 3 and 4); no other consoles, lines or devices.
func (b *boot) kernelArgs() []string {
	return []string{
		"mem=" + b.spec.Mem, "rootfstype=hostfs", "rootflags=/", "ro", "init=" + b.init, "quiet",
		"con=null", "con0=null,fd:1", "ssl=null", "ssl0=null,fd:3", "ssl1=null,fd:4",
	}
}

// status reads what the guest reported; ok is false when it wrote nothing.
func (b *boot) status() (guestStatus, bool, error) {
	var st guestStatus
	err := readJSON(filepath.Join(b.stateDir, statusFile), &st)
	if errors.Is(err, os.ErrNotExist) {
		return st, false, nil
	}
	return st, err == nil, err
}

// cleanup removes the run's directories.
func (b *boot) cleanup() error {
	var errs []error
	for _, dir := range []string{b.stateDir, b.memDir} {
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("remove guest dir: %w", err))
		}
	}
	return errors.Join(errs...)
}

// isTmpfs says whether path is on a tmpfs (where UML wants its memory file).
func isTmpfs(path string) bool {
	var fs unix.Statfs_t
	return unix.Statfs(path, &fs) == nil && fs.Type == unix.TMPFS_MAGIC
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
