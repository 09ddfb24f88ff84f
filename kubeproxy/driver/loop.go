package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	kubeproxyconfig "k8s.io/kubernetes/pkg/proxy/apis/config"
	"k8s.io/kubernetes/pkg/proxy/metrics"

	"github.com/svclab/svclab/sim/kube"
)

// Loop is kube-proxy's own sync loop running over a proxier that programs
// the current network namespace: the proxier's SyncLoop (its
// BoundedFrequencyRunner) decides when to sync, as in the kube-proxy
// binary; the Loop only hands it events and reports each sync (see the
// loop protocol in sim/kube/loop.go).
type Loop struct {
	d    *Driver
	emit func(kube.LoopOutput) error
	// mu is held during each sync and each snapshot, so that reports are
	// written one at a time and a snapshot never sees half a sync.
	mu      sync.Mutex
	syncs   int
	stopped bool
	// emitErr is the first failure to write a report from the runner's
	// goroutine; the event loop returns it. It has its own lock so that
	// events are applied at once, during a sync too, as kube-proxy's
	// informers do.
	errMu   sync.Mutex
	emitErr error
}

// StartLoop builds the proxier for req in sync mode (real kernel, real
// conntrack) with req's sync periods, registers kube-proxy's metrics for
// the mode, loads req's objects, runs and reports the first sync, and
// starts the proxier's SyncLoop. Every sync is reported through emit.
func StartLoop(ctx context.Context, req *kube.LoopRequest, emit func(kube.LoopOutput) error) (*Loop, error) {
	if len(req.Steps) > 0 {
		return nil, fmt.Errorf("loop request: has %d steps; loop mode takes its changes as events after the request", len(req.Steps))
	}
	s, err := newSettings(&req.Request)
	if err != nil {
		return nil, err
	}
	s.minSyncPeriod, s.syncPeriod = req.Periods()
	if s.minSyncPeriod > s.syncPeriod {
		return nil, fmt.Errorf("loop request: minSyncPeriod %v exceeds syncPeriod %v", s.minSyncPeriod, s.syncPeriod)
	}
	// As the kube-proxy binary does before it builds the proxier (once
	// per process: a second Loop in the same process shares the first's
	// registrations and counters).
	metrics.RegisterMetrics(kubeproxyconfig.ProxyMode(req.Mode))
	d, err := build(ctx, &req.Request, false, s)
	if err != nil {
		return nil, err
	}
	l := &Loop{d: d, emit: emit}
	if err := l.observeRunner(); err != nil {
		return nil, fmt.Errorf("kube-proxy %s %s sync runner: %w", Version(), req.Mode, err)
	}
	if err := d.load(req.Objects, req.ServiceCIDRs); err != nil {
		return nil, err
	}
	// OnEndpointSlicesSynced runs kube-proxy's first sync itself, outside
	// the runner ("called once per lifetime").
	_ = l.observe(func() error { d.proxier.OnEndpointSlicesSynced(); return nil })()
	if err := l.err(); err != nil {
		return nil, err
	}
	go d.proxier.SyncLoop()
	return l, nil
}

// observeRunner makes the proxier's BoundedFrequencyRunner call
// kube-proxy's syncProxyRules through observe, so that each sync the
// runner decides on is reported. The runner is kube-proxy's own
// (pkg/proxy/runner, the same in every supported release); only its work
// function is wrapped.
func (l *Loop) observeRunner() error {
	runner, err := getField(l.d.proxier, "syncRunner")
	if err != nil {
		return err
	}
	fn, err := getField(runner, "fn")
	if err != nil {
		return err
	}
	sync, ok := fn.(func() error)
	if !ok {
		return fmt.Errorf("field fn of %T is a %T, not a func() error", runner, fn)
	}
	return setField(runner, "fn", l.observe(sync))
}

// observe wraps one sync: it times it, reads kube-proxy's metrics before
// and after (full or partial, network programming observations), takes
// the recorders' payload size and error, and reports it.
func (l *Loop) observe(sync func() error) func() error {
	return func() error {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.stopped {
			return nil
		}
		before, gatherErr := gatherCounts()
		start := time.Now()
		err := sync()
		elapsed := time.Since(start)
		after, afterErr := gatherCounts()
		payload, recErr := l.d.take()
		s := kube.LoopSync{
			Index: l.syncs, Start: start, DurationNS: elapsed.Nanoseconds(), PayloadBytes: len(payload),
			Full:              l.d.mode == kube.ModeIPVS || after.full > before.full,
			Programmed:        after.programmed - before.programmed,
			ProgrammedSeconds: after.programmedSeconds - before.programmedSeconds,
		}
		if e := errors.Join(err, recErr); e != nil {
			s.Error = e.Error()
		}
		l.syncs++
		l.report(kube.LoopOutput{Sync: &s}, errors.Join(gatherErr, afterErr))
		return err
	}
}

// report writes out, or keeps the first failure (of gathering or of
// writing) for the event loop.
func (l *Loop) report(out kube.LoopOutput, gatherErr error) {
	if l.err() != nil {
		return
	}
	err := gatherErr
	if err != nil {
		err = fmt.Errorf("kube-proxy metrics: %w", gatherErr)
	} else if err = l.emit(out); err != nil {
		err = fmt.Errorf("report of sync %d: %w", l.syncs-1, err)
	}
	if err != nil {
		l.errMu.Lock()
		l.emitErr = err
		l.errMu.Unlock()
	}
}

func (l *Loop) err() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.emitErr
}

// Handle applies one event: an object event goes to kube-proxy's informer
// handlers at once, during a sync too (the runner syncs when kube-proxy
// decides); a ControlMetrics event writes a snapshot once a sync in
// progress ends. ControlStop is Stop's.
func (l *Loop) Handle(ev kube.LoopEvent) error {
	if err := l.err(); err != nil {
		return err
	}
	switch ev.Control {
	case "":
		if err := l.d.apply(ev.Op); err != nil {
			return fmt.Errorf("event %s: %w", ev.Action, err)
		}
		return nil
	case kube.ControlMetrics:
		return l.snapshot(ev.Tag, false)
	}
	return fmt.Errorf("event control %q: want %q or %q", ev.Control, kube.ControlMetrics, kube.ControlStop)
}

// Stop waits for a sync in progress, stops reporting further syncs and
// writes the final snapshot. kube-proxy's goroutines keep running until
// the process exits; what the proxier programmed stays.
func (l *Loop) Stop() error {
	if err := l.snapshot("", true); err != nil {
		return err
	}
	return l.err()
}

// snapshot writes kube-proxy's metrics now (between syncs).
func (l *Loop) snapshot(tag string, final bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return errors.New("loop stopped")
	}
	l.stopped = final
	m, err := gatherMetrics()
	if err != nil {
		return fmt.Errorf("kube-proxy metrics: %w", err)
	}
	m.Tag, m.Final, m.Syncs = tag, final, l.syncs
	return l.emit(kube.LoopOutput{Metrics: &m})
}

// RunLoop runs a loop session: StartLoop, then every event next returns
// until it returns nil or a ControlStop event, then Stop.
func RunLoop(ctx context.Context, req *kube.LoopRequest, next func() (*kube.LoopEvent, error), emit func(kube.LoopOutput) error) error {
	l, err := StartLoop(ctx, req, emit)
	if err != nil {
		return err
	}
	for {
		ev, err := next()
		if err != nil {
			return err
		}
		if ev == nil || ev.Control == kube.ControlStop {
			return l.Stop()
		}
		if err := l.Handle(*ev); err != nil {
			return err
		}
	}
}
