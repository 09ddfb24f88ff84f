package uml

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Grace periods after the guest stops: for its helper processes to die,
// and for the last output to drain.
const (
	groupExitWait = 5 * time.Second
	drainWait     = 2 * time.Second
	consoleLines  = 25
)

// Run boots a user-mode-linux guest, runs spec.Binary in it and waits for
// the guest to power off. It returns *ExitError when the program exits
// non-zero, and a plain error, with the tail of the guest console, when
// the kernel is missing, the guest fails to boot, its init fails, or the
// run outlives spec.Timeout or ctx. Every process of the guest is gone,
// and the run's temp directories removed, when Run returns.
func Run(ctx context.Context, spec Spec) (Result, error) {
	info, err := Available()
	if err != nil {
		return Result{}, err
	}
	if spec, err = spec.withDefaults(info); err != nil {
		return Result{}, err
	}
	b, err := newBoot(info, spec)
	if err != nil {
		return Result{}, err
	}
	if spec.Started != nil {
		if err := spec.Started(0, b.dirs()); err != nil {
			return Result{}, errors.Join(err, b.cleanup())
		}
	}
	res, err := b.run(ctx)
	return res, errors.Join(err, b.cleanup())
}

// run starts the guest and waits for it (or kills it) and its output.
func (b *boot) run(ctx context.Context) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, b.spec.Timeout)
	defer cancel()
	out, err := openStreams(b.spec)
	if err != nil {
		return Result{}, err
	}
	cmd := exec.Command(b.info.Binary, b.kernelArgs()...)
	cmd.Dir = b.stateDir
	cmd.Env = append(os.Environ(), "TMPDIR="+b.memDir)
	cmd.Stdout, cmd.Stderr = out.console.w, out.console.w
	cmd.ExtraFiles = []*os.File{out.stdout.w, out.stderr.w} // fds 3 and 4
	// Namespaces of its own (network, mounts, host name, IPC): the guest
	// has no network device to the host, and user-mode-linux's processes
	// are host processes whose system calls it intercepts with ptrace
	// (PTRACE_TRACEME, without PTRACE_O_EXITKILL: arch/um/os-Linux/skas/
	// process.c). If the UML kernel is killed (svclab killed: Pdeathsig)
	// while one of them is stopped at a system call, that call may run on
	// the host kernel once its tracer is gone: an iptables table, a mount,
	// a host name then land in these namespaces, not the host's (CI's
	// TestChaos/08-ipvs-killed once found a legacy nat table created in the
	// host's network namespace). Go makes the mounts private before exec;
	// the namespaces go with the last of the guest's processes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL,
		Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC, Unshareflags: syscall.CLONE_NEWNS}

	// Pdeathsig fires when the starting thread exits: keep it alive.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		out.closeAll()
		return Result{}, fmt.Errorf("start user-mode-linux %s: %w", b.info.Binary, err)
	}
	out.closeWriters()
	if b.spec.Started != nil {
		if err := b.spec.Started(cmd.Process.Pid, nil); err != nil {
			_ = killGroup(cmd.Process.Pid)
		}
	}
	waitErr, stopped := waitOrKill(ctx, cmd)
	res := Result{Duration: time.Since(start), GuestKernel: b.info.Version}

	var errs []error
	if err := killGroup(cmd.Process.Pid); err != nil {
		errs = append(errs, fmt.Errorf("kill guest process group %d: %w", cmd.Process.Pid, err))
	}
	if !waitGroupGone(cmd.Process.Pid, groupExitWait) {
		errs = append(errs, fmt.Errorf("guest processes %v still alive after SIGKILL", groupMembers(cmd.Process.Pid)))
	}
	if err := out.wait(drainWait); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, b.outcome(&res, start, waitErr, stopped, out.tail))
	return res, errors.Join(errs...)
}

// waitOrKill waits for the UML process; if ctx ends first it kills the
// whole process group and returns ctx's error as stopped.
func waitOrKill(ctx context.Context, cmd *exec.Cmd) (waitErr, stopped error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err, nil
	case <-ctx.Done():
		_ = killGroup(cmd.Process.Pid)
		return <-done, ctx.Err()
	}
}

// outcome fills res from the guest's status and says what went wrong.
func (b *boot) outcome(res *Result, start time.Time, waitErr, stopped error, console *tailBuffer) error {
	st, reported, readErr := b.status()
	if reported {
		res.GuestKernel = st.KernelRelease
		res.ExitCode = st.ExitCode
		if boot := time.Unix(0, st.InitStartUnixNano).Sub(start); boot > 0 {
			res.Boot = boot
		}
		if st.ProgramStartUnixNano > st.InitStartUnixNano {
			res.Setup = time.Duration(st.ProgramStartUnixNano - st.InitStartUnixNano)
		}
	}
	tail := func() string { return "\nlast lines of the guest console:\n" + console.lastLines(consoleLines) }
	switch {
	case errors.Is(stopped, context.DeadlineExceeded):
		return fmt.Errorf("user-mode-linux guest still running after %v: %w; killed it%s", b.spec.Timeout, ErrTimeout, tail())
	case stopped != nil:
		return fmt.Errorf("user-mode-linux guest stopped: %w%s", stopped, tail())
	case readErr != nil:
		return fmt.Errorf("read the guest's status: %w", readErr)
	case !reported:
		return fmt.Errorf("user-mode-linux guest stopped (%v) before its init reported: boot failure, or %s does not run uml.GuestInit for %s%s",
			waitErr, b.spec.InitBinary, GuestInitCommand, tail())
	case st.Error != "":
		return fmt.Errorf("user-mode-linux guest: %s%s", st.Error, tail())
	case st.ExitCode != 0:
		return &ExitError{Code: st.ExitCode}
	}
	return nil
}
