package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/sim/results"
)

// besidePoll is how often a run looks for other svclab runs on the
// machine: reading a few small lease files, far below what it measures.
const besidePoll = 2 * time.Second

// besideWatch records the other svclab runs, labs and tests live on the
// machine while a run measures (machine.Machine.OtherRuns), and logs each
// the first time it is seen, and adds up the CPU other programs use
// (outsideWatch): their load disturbs the run's timings, and the run says
// so rather than record slower numbers as the machine's.
type besideWatch struct {
	opts   Options
	mu     sync.Mutex
	seen   map[machine.OtherRun]*results.BesideRun
	order  []machine.OtherRun
	failed bool
	// outside adds up the CPU used outside the run.
	outside outsideWatch
	// stopOnce ends the polling once (finish).
	stopOnce sync.Once
	cancel   context.CancelFunc
	done     chan struct{}
}

// watchBeside polls now, then every besidePoll until finish.
func watchBeside(ctx context.Context, opts Options) *besideWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &besideWatch{opts: opts, seen: map[machine.OtherRun]*results.BesideRun{}, cancel: cancel, done: make(chan struct{})}
	w.poll()
	go func() {
		defer close(w.done)
		tick := time.NewTicker(besidePoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				w.poll()
			}
		}
	}()
	return w
}

// poll reads the machine's other runs and the CPU used outside the run
// once. It never stops the run: what it cannot read is logged once.
func (w *besideWatch) poll() {
	others, err := w.opts.Machine.OtherRuns(w.opts.Prefix)
	outside, outsideErr := w.opts.Machine.OutsideCPU()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.outside.note(outside, outsideErr, time.Now()); err != nil {
		w.opts.logf("svclab: warning: cannot tell what CPU other programs use beside run %s: %v", w.opts.Prefix, err)
	}
	if busy, ok := w.outside.newlyBusy(); ok {
		w.opts.logf("svclab: warning: other programs are using %.2f CPUs beside run %s: they share the CPUs, so this run's timings may be disturbed (summary.json records it)", busy, w.opts.Prefix)
	}
	if err != nil {
		if !w.failed {
			w.opts.logf("svclab: warning: cannot tell whether other svclab runs share the machine: %v", err)
		}
		w.failed = true
		return
	}
	now := time.Now().UTC().Format(time.RFC3339)
	for _, o := range others {
		if b, ok := w.seen[o]; ok {
			b.LastSeen = now
			continue
		}
		w.seen[o] = &results.BesideRun{Run: o.Run, Kind: o.Kind, PID: o.PID, FirstSeen: now, LastSeen: now}
		w.order = append(w.order, o)
		w.opts.logf("svclab: warning: svclab %s %s (pid %d) is live on this machine beside run %s: both share the CPUs, so this run's timings may be disturbed (summary.json records it)",
			kindWord(o.Kind), o.Run, o.PID, w.opts.Prefix)
	}
}

// finish stops polling, polls a last time and returns the runs seen, in
// the order they were first seen, and the load outside the run (nil if it
// could not be read). Calls after the first only return them.
func (w *besideWatch) finish() ([]results.BesideRun, *results.OutsideLoad) {
	w.stopOnce.Do(func() {
		w.cancel()
		<-w.done
		w.poll()
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]results.BesideRun, 0, len(w.order))
	for _, o := range w.order {
		out = append(out, *w.seen[o])
	}
	return out, w.outside.result()
}

// kindWord names a lease's kind for a log line.
func kindWord(kind string) string {
	switch kind {
	case lease.KindUp:
		return "lab (svclab up)"
	case lease.KindTest:
		return "test"
	case lease.KindRun, "":
		return "run"
	case lease.KindVerifyTrace:
		return "verify-trace"
	case lease.KindMigrateVerify:
		return "migrate --verify"
	}
	return fmt.Sprintf("%q lease", kind)
}

// recordBeside ends w and records what it saw in the run's summary, with
// the warnings.
func recordBeside(summary *results.Summary, w *besideWatch) {
	summary.BesideRuns, summary.OutsideLoad = w.finish()
	summary.Warnings = append(summary.Warnings, summary.SharingWarnings()...)
}

// WatchSharing watches, from now until the returned record is called, the
// other svclab runs and the load outside this process's tree on the
// machine, as a run on this kernel does: for a run whose measuring
// happens elsewhere (a user-mode-linux guest, whose own /proc sees
// nothing of the host's load). record writes what it saw into a summary
// (replacing the summary's beside_runs and outside_load, adding the
// warnings) and stops the watch; calls after the first record the same.
func WatchSharing(ctx context.Context, opts Options) (record func(*results.Summary)) {
	w := watchBeside(ctx, opts)
	return func(s *results.Summary) { recordBeside(s, w) }
}
