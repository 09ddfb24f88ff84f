package uml

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"golang.org/x/sys/unix"
)

// guestPath is the PATH of the guest init and the program it runs.
const guestPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Serial lines the program's output leaves the guest by (see Run's
// kernel command line: ssl0 and ssl1 are host pipes).
const (
	stdoutTTY = "/dev/ttyS0"
	stderrTTY = "/dev/ttyS1"
)

// GuestInit is the guest side of Run. A binary calls it when its first
// argument is GuestInitCommand, with the remaining arguments (the config
// path). It sets up the guest, runs the program, reports its status and
// powers the guest off, so it does not return inside a guest. It refuses,
// touching nothing, unless it is pid 1 on the kernel release Run booted.
func GuestInit(args []string) error {
	start := time.Now()
	if len(args) != 1 {
		return fmt.Errorf("usage: %s CONFIG (started by the user-mode-linux guest runner)", GuestInitCommand)
	}
	release := kernelRelease()
	var cfg guestConfig
	if err := readJSON(args[0], &cfg); err != nil {
		return fmt.Errorf("guest init: %w", err)
	}
	if os.Getpid() != 1 || release != cfg.KernelRelease {
		return fmt.Errorf("guest init: must run as pid 1 of a user-mode-linux %s guest (this is pid %d on kernel %s)",
			cfg.KernelRelease, os.Getpid(), release)
	}
	os.Setenv("PATH", guestPath)
	st := guestStatus{KernelRelease: release, InitStartUnixNano: start.UnixNano()}
	err := setUpGuest(cfg)
	if err == nil {
		st.Ran, st.ProgramStartUnixNano = true, time.Now().UnixNano()
		st.ExitCode, err = runProgram(cfg)
	}
	if err != nil {
		st.Error = err.Error()
		logConsole("%v", err)
	}
	if err := writeJSON(cfg.StateDir+"/"+statusFile, st); err != nil {
		logConsole("report status: %v", err)
	}
	return powerOff()
}

// runProgram runs the configured program with its output on the serial
// lines and returns its exit status.
func runProgram(cfg guestConfig) (int, error) {
	stdout, err := openRawTTY(stdoutTTY)
	if err != nil {
		return 0, err
	}
	defer closeTTY(stdout)
	stderr, err := openRawTTY(stderrTTY)
	if err != nil {
		return 0, err
	}
	defer closeTTY(stderr)
	cmd := exec.Command(cfg.Binary, cfg.Args...)
	cmd.Env = append([]string{"PATH=" + guestPath, "HOME=/root", "TMPDIR=/tmp", GuestEnv + "=1"}, cfg.Env...)
	cmd.Dir = "/tmp"
	if cfg.WorkDir != "" {
		cmd.Dir = cfg.WorkDir
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("run %s in the guest: %w", cfg.Binary, err)
	}
	return 0, nil
}

// openRawTTY opens a serial line for writing with output processing off,
// so "\n" stays "\n" on the host.
func openRawTTY(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("open guest serial line: %w", err)
	}
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err == nil {
		t.Oflag &^= unix.OPOST
		t.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG | unix.IEXTEN
		err = unix.IoctlSetTermios(fd, unix.TCSETS, t)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("set %s raw: %w", path, err)
	}
	return f, nil
}

// closeTTY waits until the line's output has reached the host, then
// closes it.
func closeTTY(f *os.File) {
	_ = unix.IoctlSetInt(int(f.Fd()), unix.TCSBRK, 1) // tcdrain
	f.Close()
}

// powerOff flushes every filesystem (the state and work directories are
// host directories) and powers the guest off.
func powerOff() error {
	unix.Sync()
	err := unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	return fmt.Errorf("guest init: power off: %w", err)
}

// logConsole writes a line to the guest console, which Run keeps.
func logConsole(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "svclab-guest-init: "+format+"\n", args...)
}

// kernelRelease is uname -r.
func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}

// InitIfGuest makes a binary this package boots serve as the guest's init:
// when args (os.Args[1:]) start with GuestInitCommand it runs GuestInit and
// exits the process (1 on error); otherwise it returns at once. Call it
// first thing, e.g. from a test binary's init.
func InitIfGuest(args []string) {
	if len(args) == 0 || args[0] != GuestInitCommand {
		return
	}
	if err := GuestInit(args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "svclab guest init:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
