package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/runner"
)

// gracePeriod is how long a run may take to wind down after Ctrl-C before
// svclab tears the lab down itself and exits.
const gracePeriod = 15 * time.Second

var (
	labMu     sync.Mutex
	activeLab *runner.Lab
	runPrefix string // every namespace of the run starts with it
)

// rememberLab records the running lab for the signal handler.
func rememberLab(l *runner.Lab) {
	labMu.Lock()
	activeLab = l
	labMu.Unlock()
}

// interruptContext is cancelled by the first SIGINT/SIGTERM; the run then
// stops its traffic and its deferred teardown removes the lab. A second
// signal, or the grace period running out, tears the lab down at once and
// exits with 130.
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case s := <-sigs:
			fmt.Fprintf(stderr, "\nsvclab: %v: stopping the run and removing the lab (again to force)\n", s)
			cancel()
		}
		select {
		case <-done:
		case <-sigs:
			forceTeardown(stderr)
		case <-time.After(gracePeriod):
			forceTeardown(stderr)
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// forceTeardown closes the fairness lab, then deletes every namespace that
// carries the run's prefix (a sweep has one lab per point).
func forceTeardown(stderr io.Writer) {
	labMu.Lock()
	l, prefix := activeLab, runPrefix
	labMu.Unlock()
	if l != nil {
		if err := l.Close(); err != nil {
			fmt.Fprintf(stderr, "svclab: teardown: %v\n", err)
		}
	}
	if prefix != "" {
		if _, err := removeNamespaces(prefix); err != nil {
			fmt.Fprintf(stderr, "svclab: teardown: %v (run `svclab cleanup`)\n", err)
		}
	}
	os.Exit(130)
}
