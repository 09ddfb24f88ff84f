package traffic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svclab/svclab/lab/netns"
)

// Run opens spec.Connections connections to spec.Target from spec.Netns with
// spec.Concurrency workers, paced to spec.Rate, and calls sink (if not nil)
// with each connection's Record as it finishes. sink is called from one
// goroutine at a time, in the caller's namespace; a slow sink slows the run.
//
// Failed connections are counted, not fatal: Run returns an error only for
// a bad spec, a namespace it cannot enter, or when every connection failed.
// When ctx ends, Run stops promptly and returns the summary of what finished
// together with an error wrapping ctx.Err().
func Run(ctx context.Context, spec Spec, sink func(Record)) (Summary, error) {
	spec, err := spec.withDefaults()
	if err != nil {
		return Summary{}, err
	}
	r := &runner{spec: spec, pacer: newPacer(spec.Rate), records: make(chan Record, 1024)}
	var summary Summary
	work, giveUp := context.WithCancel(ctx)
	defer giveUp()
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for rec := range r.records {
			summary.add(rec)
			if summary.Errors >= failFast && summary.Errors == summary.Connections {
				giveUp() // nothing gets through: do not wait out every timeout
			}
			if sink != nil {
				sink(rec)
			}
		}
	}()
	start := time.Now()
	workerErr := r.runWorkers(work)
	elapsed := time.Since(start)
	close(r.records)
	<-collected
	summary.finish(elapsed)
	return summary, r.outcome(ctx, summary, workerErr)
}

// failFast is how many connections may fail, with none succeeding, before
// Run gives up on the rest.
const failFast = 20

// runner is the state the workers of one Run share.
type runner struct {
	spec    Spec
	pacer   *pacer
	claimed atomic.Int64 // connections handed out so far
	records chan Record
}

// runWorkers starts spec.Concurrency workers and waits for them.
func (r *runner) runWorkers(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make([]error, r.spec.Concurrency)
	for i := range errs {
		wg.Go(func() { errs[i] = r.worker(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// worker runs one worker's loop inside spec.Netns.
//
// The worker enters the namespace ONCE: netns.Do switches a locked OS thread
// into it and runs the whole loop there. socket(2) creates a socket in the
// namespace of the thread that calls it, and the socket keeps that namespace
// for its life, so every connection this worker dials is born in spec.Netns
// even though the Go runtime may poll it from other threads. Goroutines do
// not inherit the namespace, so nothing in the loop may dial from another
// goroutine (which is why HTTP is spoken by hand, not through http.Client).
func (r *runner) worker(ctx context.Context) error {
	if r.spec.Netns == "" {
		r.loop(ctx)
		return nil
	}
	return netns.Do(r.spec.Netns, func() error {
		r.loop(ctx)
		return nil
	})
}

// loop claims connections from the shared counter until none are left or
// ctx ends, waiting for the pacer before each one.
func (r *runner) loop(ctx context.Context) {
	c := newConn(&r.spec)
	for {
		seq := int(r.claimed.Add(1) - 1)
		if seq >= r.spec.Connections {
			return
		}
		if r.pacer.wait(ctx) != nil {
			return
		}
		rec := c.run(ctx, seq)
		if rec.Err != "" && ended(ctx) {
			return // cut short by cancellation, not a failure of the target
		}
		r.records <- rec
	}
}

// ended reports whether ctx is done or past its deadline. The deadline
// check matters because a dial under ctx's deadline can fail with a timeout
// a moment before ctx's own timer marks it done.
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	deadline, ok := ctx.Deadline()
	return ok && !time.Now().Before(deadline)
}

// outcome turns what happened into Run's error.
func (r *runner) outcome(ctx context.Context, s Summary, workerErr error) error {
	from := r.spec.Netns
	if from == "" {
		from = "(current)"
	}
	switch {
	case workerErr != nil:
		return fmt.Errorf("traffic to %s from netns %s: %w", r.spec.Target, from, workerErr)
	case s.Connections > 0 && s.Errors == s.Connections && ctx.Err() == nil:
		return fmt.Errorf("all %d connections to %s from netns %s failed (gave up after %d), first: %s",
			s.Connections, r.spec.Target, from, failFast, s.FirstErrors[0])
	case ended(ctx):
		<-ctx.Done() // at most a moment away once the deadline has passed
		return fmt.Errorf("traffic to %s from netns %s stopped after %d connections: %w",
			r.spec.Target, from, s.Connections, ctx.Err())
	case s.Connections > 0 && s.Errors == s.Connections:
		return fmt.Errorf("all %d connections to %s from netns %s failed, first: %s",
			s.Connections, r.spec.Target, from, s.FirstErrors[0])
	}
	return nil
}
