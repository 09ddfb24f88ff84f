package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// guestTimeout bounds a whole run inside a user-mode-linux guest.
const guestTimeout = 40 * time.Minute

// needsGuest decides where the run goes: kernel "host", "uml", or "auto"
// (the guest when a dataplane needs IPVS and the host has none).
func needsGuest(sc *scenario.Scenario, kernel string) (bool, error) {
	switch kernel {
	case "host":
		return false, nil
	case "uml":
		return true, nil
	case "auto", "":
	default:
		return false, inputErrorf("--kernel %q: want auto, host or uml", kernel)
	}
	if os.Getenv(uml.GuestEnv) == "1" {
		return false, nil
	}
	for _, d := range sc.Dataplanes() {
		if info, ok := dataplane.Lookup(d); ok && info.KernelFeature == "ip_vs" && !hostHasIPVS() {
			return true, nil
		}
	}
	return false, nil
}

func hostHasIPVS() bool {
	_, err := os.Stat("/proc/net/ip_vs")
	return err == nil
}

// runInGuest runs the same scenario with `svclab run … --kernel host`
// inside a user-mode-linux guest that shares the run directory. The
// guest's processes are recorded in the run's lease, so `svclab cleanup`
// kills them if this process dies.
func runInGuest(ctx context.Context, opts RunOptions) (*Outcome, error) {
	if _, err := uml.Available(); err != nil {
		return nil, fmt.Errorf("this run needs a kernel with IPVS: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(opts.OutDir)
	if err != nil {
		return nil, err
	}
	if err := results.MkdirAll(dir, 0o755); err != nil { // the sudo user's, as results.Create makes it
		return nil, fmt.Errorf("create run directory %s: %w", dir, err)
	}
	source := opts.Source
	if st, err := os.Stat(source); err == nil && !st.IsDir() {
		source, _ = filepath.Abs(source)
	}
	l, err := lease.Acquire(opts.Prefix, "run")
	if err != nil {
		return nil, err
	}
	args := append([]string{"run", source, "--out", dir, "--kernel", "host"}, opts.GuestArgs...)
	opts.logf("svclab: the host kernel has no IPVS: running in a user-mode-linux guest (timings are the guest's, not the host's)")
	spec := uml.Spec{Binary: self, Args: args, Env: invokerEnv(), WorkDir: dir, Stdout: opts.Stdout, Stderr: opts.Stderr, Mem: "1536M", Timeout: guestTimeout,
		Started: func(pgid int, dirs []string) error { return recordGuest(l, pgid, dirs) }}
	res, err := uml.Run(ctx, spec)
	out := &Outcome{Dir: dir, Guest: res.GuestKernel}
	if res.GuestKernel != "" {
		recordGuestKernel(dir, res.GuestKernel)
	}
	if s, serr := results.ReadSummary(dir); serr == nil {
		out.Summary = s
	}
	if err != nil && ctx.Err() != nil {
		return out, finishLease(l, opts.Prefix, closeInterrupted(dir, opts, out))
	}
	if err != nil {
		return out, finishLease(l, opts.Prefix, fmt.Errorf("guest run: %w (results so far are in %s)", err, dir))
	}
	opts.logf("guest kernel %s: boot %v, whole run %v", res.GuestKernel, res.Boot.Round(time.Millisecond), res.Duration.Round(time.Second))
	return out, finishLease(l, opts.Prefix, nil)
}

// recordGuest puts the guest's process group and temp dirs in the lease.
func recordGuest(l *lease.Lease, pgid int, dirs []string) error {
	for _, d := range dirs {
		if err := l.AddDir(d); err != nil {
			return err
		}
	}
	if pgid == 0 {
		return nil
	}
	return l.AddProcess(pgid, true)
}

func recordGuestKernel(dir, guest string) {
	m, err := results.ReadMeta(dir)
	if err != nil {
		return
	}
	m.GuestKernel = guest
	m.Kernel = KernelRelease()
	_ = results.WriteJSON(dir, results.MetaFile, m)
}

// closeInterrupted ends the results of a guest run that was stopped
// before its own svclab could: the interrupted record, and summary.json.
func closeInterrupted(dir string, opts RunOptions, out *Outcome) error {
	w, err := results.Reopen(dir)
	if err != nil {
		return errors.Join(fmt.Errorf("%w: the guest run was stopped", ErrInterrupted), err)
	}
	defer w.Close()
	s := out.Summary
	if s == nil {
		s = &results.Summary{Schema: results.SchemaVersion, Run: opts.Prefix}
		out.Summary = s
	}
	ierr := interrupted(w, opts, s)
	return errors.Join(ierr, results.WriteJSON(dir, results.SummaryFile, s))
}
