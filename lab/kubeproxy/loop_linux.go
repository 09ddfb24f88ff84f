package kubeproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/svclab/svclab/sim/kube"
)

// Loop is a driver running kube-proxy's own sync loop (`kube-proxy-driver
// loop`, protocol in sim/kube/loop.go) inside a lab namespace: events go
// in as they happen, kube-proxy syncs when its BoundedFrequencyRunner
// decides, and every sync and metrics snapshot comes back as a Go value.
// The driver is killed if svclab dies (SIGKILL on the parent's death, as
// for Process) or ctx ends.
//
// Send, Metrics and Stop are for one goroutine (the timeline's executor);
// Syncs, WaitSyncs and OnSync's callback may be used from any.
type Loop struct {
	p   *proc
	req kube.LoopRequest
	// Started is when the driver process was started; ColdStart is the
	// time from then until its first sync (index 0) was reported.
	Started   time.Time
	ColdStart time.Duration
	// objects are the Services and EndpointSlices as last sent, by kind
	// and key, for Restart.
	objects *objectSet
	enc     *json.Encoder
	metrics chan kube.Metrics

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a sync arrives or reading ends
	syncs   []kube.LoopSync
	onSync  func(kube.LoopSync)
	readErr error // why reading ended (io.EOF after a clean exit)
	waited  bool
	waitErr error
}

// LoopOptions are how StartLoop starts the driver.
type LoopOptions struct {
	NS, Bin string
	// IPTables binds kube-proxy's iptables commands to "legacy" or "nft"
	// ("" for the system's).
	IPTables string
	// OnSync, if set, is called with every sync after the first, in order,
	// from the goroutine that reads the driver (it must not block long:
	// the driver waits for its output to be read).
	OnSync func(kube.LoopSync)
}

// StartLoop starts the driver in loop mode, hands it req (its Objects are
// kube-proxy's state at start) and returns once kube-proxy's first sync is
// reported (Loop.Syncs()[0], Loop.ColdStart).
func StartLoop(ctx context.Context, opt LoopOptions, req *kube.LoopRequest) (*Loop, error) {
	objects, err := newObjectSet(req.Objects)
	if err != nil {
		return nil, fmt.Errorf("loop request: %w", err)
	}
	l := &Loop{req: *req, objects: objects, metrics: make(chan kube.Metrics, 1), changed: make(chan struct{}), onSync: opt.OnSync}
	l.Started = time.Now()
	if l.p, err = spawn(ctx, opt.NS, opt.Bin, opt.IPTables, "loop"); err != nil {
		return nil, err
	}
	l.enc = json.NewEncoder(l.p.stdin)
	go l.read()
	if err := l.enc.Encode(req); err != nil {
		return nil, l.kill(err)
	}
	if _, err := l.WaitSyncs(ctx, 1); err != nil {
		return nil, l.kill(err)
	}
	l.mu.Lock()
	l.ColdStart = time.Since(l.Started)
	l.mu.Unlock()
	return l, nil
}

// read decodes the driver's output until it ends: syncs are kept (and
// handed to OnSync), snapshots go to the metrics channel.
func (l *Loop) read() {
	sc := bufio.NewScanner(l.p.stdout)
	sc.Buffer(nil, 64<<20)
	var err error
	for sc.Scan() {
		var out kube.LoopOutput
		if err = json.Unmarshal(sc.Bytes(), &out); err != nil {
			err = fmt.Errorf("driver output %q: %w", sc.Text(), err)
			break
		}
		switch {
		case out.Sync != nil:
			l.addSync(*out.Sync)
		case out.Metrics != nil:
			l.metrics <- *out.Metrics
		}
	}
	if err == nil {
		if err = sc.Err(); err == nil {
			err = io.EOF
		}
	}
	l.mu.Lock()
	l.readErr = err
	close(l.changed)
	l.mu.Unlock()
	close(l.metrics)
}

func (l *Loop) addSync(s kube.LoopSync) {
	l.mu.Lock()
	l.syncs = append(l.syncs, s)
	on := l.onSync
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
	if on != nil && s.Index > 0 {
		on(s)
	}
}

// Syncs returns the syncs reported so far, the first (index 0) included.
func (l *Loop) Syncs() []kube.LoopSync {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]kube.LoopSync(nil), l.syncs...)
}

// WaitSyncs waits until at least n syncs (the first included) have been
// reported, and returns them.
func (l *Loop) WaitSyncs(ctx context.Context, n int) ([]kube.LoopSync, error) {
	for {
		l.mu.Lock()
		syncs, changed, readErr := append([]kube.LoopSync(nil), l.syncs...), l.changed, l.readErr
		l.mu.Unlock()
		if len(syncs) >= n {
			return syncs, nil
		}
		if readErr != nil {
			return syncs, l.p.wrap(fmt.Errorf("driver ended after %d of %d syncs: %w", len(syncs), n, l.exitErr(readErr)))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return syncs, ctx.Err()
		}
	}
}

// Send hands the driver one object event (kube.Add, kube.Update or
// kube.Delete of a Service or EndpointSlice): kube-proxy's informer
// handler sees it at once. Stamp EndpointSlices with
// kube.StampTriggerTime first to have kube-proxy measure the event's
// network programming latency.
func (l *Loop) Send(op kube.Op) error {
	if err := l.objects.apply(op); err != nil {
		return fmt.Errorf("loop event: %w", err)
	}
	return l.send(kube.LoopEvent{Op: op})
}

func (l *Loop) send(ev kube.LoopEvent) error {
	if err := l.enc.Encode(ev); err != nil {
		return l.p.wrap(fmt.Errorf("send event: %w", err))
	}
	return nil
}

// Metrics asks for a snapshot of kube-proxy's metrics now and returns it.
func (l *Loop) Metrics(ctx context.Context) (kube.Metrics, error) {
	if err := l.send(kube.LoopEvent{Control: kube.ControlMetrics}); err != nil {
		return kube.Metrics{}, err
	}
	return l.nextMetrics(ctx)
}

func (l *Loop) nextMetrics(ctx context.Context) (kube.Metrics, error) {
	select {
	case m, ok := <-l.metrics:
		if !ok {
			l.mu.Lock()
			err := l.readErr
			l.mu.Unlock()
			return kube.Metrics{}, l.p.wrap(fmt.Errorf("no metrics snapshot: %w", l.exitErr(err)))
		}
		return m, nil
	case <-ctx.Done():
		return kube.Metrics{}, ctx.Err()
	}
}

// Stop ends the session cleanly: the driver finishes a sync in progress,
// writes its final metrics snapshot, which Stop returns, and exits. What
// kube-proxy programmed stays in the namespace.
func (l *Loop) Stop(ctx context.Context) (kube.Metrics, error) {
	if err := l.send(kube.LoopEvent{Control: kube.ControlStop}); err != nil {
		return kube.Metrics{}, l.kill(err)
	}
	m, err := l.nextMetrics(ctx)
	if err != nil {
		return m, l.kill(err)
	}
	_ = l.p.stdin.Close()
	if err := l.wait(); err != nil {
		return m, l.p.removeDir(l.p.wrap(err))
	}
	return m, l.p.removeDir(nil)
}

// Kill ends the driver and the tools it runs at once (SIGKILL), as a
// crashed or restarted kube-proxy ends: no final snapshot, the rules stay
// (a transaction in progress is not committed).
func (l *Loop) Kill() error { return l.kill(nil) }

func (l *Loop) kill(err error) error {
	_ = l.p.killGroup()
	_ = l.p.stdin.Close()
	_ = l.wait()
	if err != nil {
		err = l.p.wrap(err)
	}
	return l.p.removeDir(err)
}

// wait reaps the driver once and keeps its exit error.
func (l *Loop) wait() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.waited {
		l.waited, l.waitErr = true, l.p.cmd.Wait()
	}
	return l.waitErr
}

// exitErr is the reason reading ended, with the exit status if the driver
// is gone.
func (l *Loop) exitErr(readErr error) error {
	if errors.Is(readErr, io.EOF) {
		return errors.New("driver closed its output")
	}
	return readErr
}

// Restart kills the driver and starts a new one in the same namespace
// with the objects as last sent (the original request's settings): a
// kube-proxy restart, whose cold start the new Loop's ColdStart measures.
func (l *Loop) Restart(ctx context.Context, opt LoopOptions) (*Loop, error) {
	if err := l.Kill(); err != nil {
		return nil, err
	}
	req := l.req
	req.Objects = l.objects.list()
	return StartLoop(ctx, opt, &req)
}

// Objects returns the Services and EndpointSlices as last sent.
func (l *Loop) Objects() v1.List { return l.objects.list() }
