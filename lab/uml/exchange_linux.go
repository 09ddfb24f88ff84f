package uml

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// The host and the guest talk through two files in the run's state
// directory, which the guest mounts read-write at the same path.
const (
	configFile = "guest.json"  // host → guest: what to run
	statusFile = "status.json" // guest → host: how it went
	initScript = "init"        // the kernel's init=, execs GuestInit
)

// guestConfig is what GuestInit needs to know.
type guestConfig struct {
	// KernelRelease is the release the host expects; GuestInit refuses to
	// run on any other kernel (e.g. the host's, by mistake).
	KernelRelease string   `json:"kernel_release"`
	StateDir      string   `json:"state_dir"`
	ModuleDir     string   `json:"module_dir"`
	Modules       []string `json:"modules"`
	Binary        string   `json:"binary"`
	Args          []string `json:"args"`
	Env           []string `json:"env"`
	WorkDir       string   `json:"work_dir,omitempty"`
	// ReadOnlyDirs are host directories under /tmp that must stay
	// visible after the guest mounts its own tmpfs on /tmp.
	ReadOnlyDirs []string `json:"read_only_dirs,omitempty"`
}

// guestStatus is what the guest reports back.
type guestStatus struct {
	KernelRelease string `json:"kernel_release"`
	// InitStartUnixNano is when GuestInit started, on the guest's clock
	// (which UML takes from the host's).
	InitStartUnixNano int64 `json:"init_start_unix_nano"`
	// ProgramStartUnixNano is when the program started, after setup.
	ProgramStartUnixNano int64 `json:"program_start_unix_nano"`
	// Ran says whether the program ran; ExitCode is its status if so.
	Ran      bool `json:"ran"`
	ExitCode int  `json:"exit_code"`
	// Error is why GuestInit failed, if it did.
	Error string `json:"error,omitempty"`
}

// writeJSON writes v to path, synced, so it survives an immediate power-off.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return f.Close()
}

// readJSON reads path into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}

// writeInitScript writes the kernel's init: a shell script that execs the
// init binary's GuestInit with the config path.
func writeInitScript(stateDir, initBinary string) (string, error) {
	path := filepath.Join(stateDir, initScript)
	script := fmt.Sprintf("#!/bin/sh\nexec %s %s %s\n",
		shellQuote(initBinary), GuestInitCommand, shellQuote(filepath.Join(stateDir, configFile)))
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", fmt.Errorf("write guest init script: %w", err)
	}
	return path, nil
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, `'\''`...)
		} else {
			out = append(out, s[i])
		}
	}
	return string(append(out, '\''))
}
