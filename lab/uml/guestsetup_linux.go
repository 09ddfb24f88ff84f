package uml

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/cgroup"
)

// moduleHome is where the guest keeps its module tree and modprobe
// wrapper (the host has no /lib/modules, and the root is read-only).
const moduleHome = "/run/svclab-uml"

// setUpGuest mounts what the program needs, loads modules and brings lo up.
func setUpGuest(cfg guestConfig) error {
	steps := []struct {
		what string
		fn   func(guestConfig) error
	}{
		{"mount filesystems", mountFilesystems},
		{"mount host directories", mountHostDirs},
		{"load modules", loadModules},
		{"bring lo up", bringLoopbackUp},
	}
	for _, s := range steps {
		if err := s.fn(cfg); err != nil {
			return fmt.Errorf("guest setup: %s: %w", s.what, err)
		}
	}
	if err := enterProgramCgroup(); err != nil { // the program still runs, its kernel memory unchecked
		logConsole("guest setup: no memory cgroup for the program: %v", err)
	}
	return nil
}

// The guest's cgroup2 hierarchy, and the group the program runs in.
const (
	guestCgroupMount = "/sys/fs/cgroup"
	programCgroup    = guestCgroupMount + "/svclab"
)

// enterProgramCgroup mounts cgroup2 (the guest has no v1 hierarchies, as a
// cgroup v2-only node), enables the memory controller for the root's
// children and moves init into a child group, which the program is born
// in: the kernel memory it charges is then its group's, apart from what
// the guest kernel and init take (procstat.WatchOwnMemoryCgroup reads it).
func enterProgramCgroup() error {
	if err := unix.Mount("cgroup2", guestCgroupMount, "cgroup2", 0, ""); err != nil {
		return fmt.Errorf("mount cgroup2 on %s: %w", guestCgroupMount, err)
	}
	control := filepath.Join(guestCgroupMount, "cgroup.subtree_control")
	if err := os.WriteFile(control, []byte("+memory"), 0); err != nil {
		return fmt.Errorf("enable the memory controller in %s: %w", control, err)
	}
	if err := os.Mkdir(programCgroup, 0o755); err != nil {
		return fmt.Errorf("create cgroup %s: %w", programCgroup, err)
	}
	return cgroup.MoveProcess(programCgroup)
}

// mountFilesystems mounts the kernel filesystems and the tmpfs for /run
// (netns mounts, lock files) and /tmp.
func mountFilesystems(guestConfig) error {
	mounts := []struct{ source, target, fstype, data string }{
		{"proc", "/proc", "proc", ""},
		{"sysfs", "/sys", "sysfs", ""},
		{"tmpfs", "/run", "tmpfs", "mode=755"},
		{"tmpfs", "/tmp", "tmpfs", "mode=1777"},
	}
	if _, err := os.Stat(stdoutTTY); err != nil { // devtmpfs not mounted by the kernel
		mounts = append(mounts, struct{ source, target, fstype, data string }{"devtmpfs", "/dev", "devtmpfs", ""})
	}
	for _, m := range mounts {
		if err := unix.Mount(m.source, m.target, m.fstype, 0, m.data); err != nil {
			return fmt.Errorf("mount %s on %s: %w", m.fstype, m.target, err)
		}
	}
	return nil
}

// mountHostDirs re-exposes host directories at their own paths: the
// binary's directory read-only (when the guest's /tmp hides it), then the
// state and work directories read-write.
func mountHostDirs(cfg guestConfig) error {
	for _, dir := range cfg.ReadOnlyDirs {
		if err := mountHostDir(dir, unix.MS_RDONLY); err != nil {
			return err
		}
	}
	for _, dir := range []string{cfg.StateDir, cfg.WorkDir} {
		if dir == "" {
			continue
		}
		if err := mountHostDir(dir, 0); err != nil {
			return err
		}
	}
	return nil
}

// mountHostDir mounts host directory dir at dir with hostfs.
func mountHostDir(dir string, flags uintptr) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make mount point %s: %w", dir, err)
	}
	if err := unix.Mount("none", dir, "hostfs", flags, dir); err != nil {
		return fmt.Errorf("mount host directory %s: %w", dir, err)
	}
	return nil
}

// loadModules gives the kernel a modprobe that finds the UML module tree
// (so on-demand loading works too) and preloads the configured modules.
func loadModules(cfg guestConfig) error {
	modprobe, err := exec.LookPath("modprobe")
	if err != nil {
		return fmt.Errorf("%w (apt-get install -y kmod)", err)
	}
	tree := filepath.Join(moduleHome, "root")
	if err := os.MkdirAll(filepath.Join(tree, "lib", "modules"), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(cfg.ModuleDir, filepath.Join(tree, "lib", "modules", cfg.KernelRelease)); err != nil {
		return err
	}
	wrapper := filepath.Join(moduleHome, "modprobe")
	script := fmt.Sprintf("#!/bin/sh\nexec %s -d %s \"$@\"\n", shellQuote(modprobe), shellQuote(tree))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile("/proc/sys/kernel/modprobe", []byte(wrapper), 0); err != nil {
		return fmt.Errorf("set kernel.modprobe: %w", err)
	}
	if len(cfg.Modules) == 0 {
		return nil
	}
	out, err := exec.Command(wrapper, append([]string{"-a"}, cfg.Modules...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("modprobe %s: %w: %s", strings.Join(cfg.Modules, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// bringLoopbackUp sets the guest's lo up.
func bringLoopbackUp(guestConfig) error {
	lo, err := netlink.LinkByName("lo")
	if err != nil {
		return err
	}
	if err := netlink.LinkSetUp(lo); err != nil && !errors.Is(err, unix.EEXIST) {
		return err
	}
	return nil
}
