package guest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/session"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/atomicfile"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// DefaultTimeout bounds a whole run inside a user-mode-linux guest unless
// Options.Timeout says otherwise.
const DefaultTimeout = 40 * time.Minute

// Options are a run's options plus where it may go.
type Options struct {
	runner.RunOptions
	// Kernel is "auto" (the host kernel, or a user-mode-linux guest when a
	// dataplane needs what the host lacks), "host" or "uml".
	Kernel string
	// Overrides are the changes the caller made to the scenario's file;
	// the guest makes them again to the same bytes.
	Overrides Overrides
	// Stdout and Stderr receive a guest run's output as it runs.
	Stdout, Stderr io.Writer
	// Timeout bounds a guest run (DefaultTimeout when 0): the guest is
	// killed after it, keeping what results.jsonl has so far.
	Timeout time.Duration
}

// Run runs sc on this kernel (runner.Run), or in a user-mode-linux guest
// when opts.Kernel asks for one or, for "auto", when a dataplane needs IPVS
// and this kernel has none.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*runner.Outcome, error) {
	ro, err := runner.Prepare(sc, opts.RunOptions)
	if err != nil {
		return nil, err
	}
	guest, err := Needed(sc, opts.Kernel)
	if err != nil {
		return nil, err
	}
	if !guest {
		return runner.Run(ctx, sc, ro)
	}
	if ro.PlantRules > 0 {
		return nil, &runner.InputError{Err: fmt.Errorf("--plant-rules plants in the host kernel's lab nodes only, and this run goes to a user-mode-linux guest: use --kernel host, or a dataplane other than IPVS")}
	}
	opts.RunOptions = ro
	return runInGuest(ctx, sc, opts)
}

// Needed decides where the run goes: kernel "host", "uml", or "auto"
// (the guest when a dataplane needs IPVS and the host has none).
func Needed(sc *scenario.Scenario, kernel string) (bool, error) {
	switch kernel {
	case "host":
		return false, nil
	case "uml":
		return true, nil
	case "auto", "":
	default:
		return false, &runner.InputError{Err: fmt.Errorf("--kernel %q: want auto, host or uml", kernel)}
	}
	if Inside() {
		return false, nil
	}
	for _, d := range sc.Dataplanes() {
		if info, ok := dataplane.Lookup(d); ok && info.Kernel.Module == "ip_vs" && !hostHasIPVS() {
			return true, nil
		}
	}
	return false, nil
}

// Inside reports whether this process runs inside a guest svclab booted.
func Inside() bool { return os.Getenv(uml.GuestEnv) == "1" }

func hostHasIPVS() bool {
	_, err := os.Stat("/proc/net/ip_vs")
	return err == nil
}

// runInGuest runs the same scenario inside a user-mode-linux guest that
// shares the run directory: it writes the job (the scenario's bytes, the
// overrides and the run's options) into the run directory, and the guest's
// svclab runs it with Serve. The guest's processes are recorded in the
// run's lease, so `svclab cleanup` kills them if this process dies.
func runInGuest(ctx context.Context, sc *scenario.Scenario, opts Options) (*runner.Outcome, error) {
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
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil { // the sudo user's, as results.Create makes it
		return nil, fmt.Errorf("create run directory %s: %w", dir, err)
	}
	job, err := writeJob(dir, newJob(sc, opts.Overrides, opts.Prefix, dir))
	if err != nil {
		return nil, err
	}
	defer os.Remove(job)
	l, err := session.AcquireRun(opts.Prefix)
	if err != nil {
		return nil, err
	}
	opts.logf("svclab: the host kernel has no IPVS: running in a user-mode-linux guest (timings are the guest's, not the host's)")
	spec := uml.Spec{Binary: self, Args: []string{Command, job}, Env: invokerEnv(), WorkDir: dir, Stdout: opts.Stdout, Stderr: opts.Stderr, Mem: "1536M", Timeout: cmp.Or(opts.Timeout, DefaultTimeout),
		Started: l.AddStarted}
	recordSharing := runner.WatchSharing(ctx, opts.Options)
	defer recordSharing(&results.Summary{}) // stops the watch when no summary was read
	res, err := uml.Run(ctx, spec)
	out := &runner.Outcome{Dir: dir, Guest: res.GuestKernel}
	if res.GuestKernel != "" {
		recordGuestKernel(dir, res.GuestKernel)
	}
	if s, serr := results.ReadSummary(dir); serr == nil {
		recordHostSharing(dir, s, recordSharing)
		out.Summary = s
	}
	if err != nil && ctx.Err() != nil {
		return out, l.Done(closeInterrupted(dir, opts.RunOptions, out))
	}
	if errors.Is(err, uml.ErrTimeout) {
		return out, l.Done(fmt.Errorf("guest run: %w (results so far are in %s; svclab run --guest-timeout gives a longer run more time)", err, dir))
	}
	if err != nil {
		return out, l.Done(fmt.Errorf("guest run: %w (results so far are in %s)", err, dir))
	}
	opts.logf("guest kernel %s: boot %v, whole run %v", res.GuestKernel, res.Boot.Round(time.Millisecond), res.Duration.Round(time.Second))
	return out, l.Done(nil)
}

func recordGuestKernel(dir, guest string) {
	m, err := results.ReadMeta(dir)
	if err != nil {
		return
	}
	m.GuestKernel = guest
	m.Kernel = host.KernelRelease()
	_ = results.WriteJSON(dir, results.MetaFile, m)
}

// recordHostSharing puts in the guest's summary.json what shared the host
// with the guest while it ran (the host's other svclab runs and the load
// outside this process and the guest): the guest's own /proc sees only
// the guest.
func recordHostSharing(dir string, s *results.Summary, record func(*results.Summary)) {
	record(s)
	_ = results.WriteJSON(dir, results.SummaryFile, s)
}

// closeInterrupted ends the results of a guest run that was stopped
// before its own svclab could: the interrupted record, and summary.json.
func closeInterrupted(dir string, opts runner.RunOptions, out *runner.Outcome) error {
	w, err := results.Reopen(dir)
	if err != nil {
		return errors.Join(fmt.Errorf("%w: the guest run was stopped", runner.ErrInterrupted), err)
	}
	defer w.Close()
	s := out.Summary
	if s == nil {
		s = &results.Summary{Schema: results.SchemaVersion, Run: opts.Prefix}
		out.Summary = s
	}
	ierr := runner.Interrupted(w, opts, s)
	return errors.Join(ierr, results.WriteJSON(dir, results.SummaryFile, s))
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}
