package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interruption is the first SIGINT or SIGTERM a lab command received.
type interruption struct {
	mu  sync.Mutex
	sig os.Signal
}

// name is the signal's name for the interrupted record ("interrupt",
// "terminated"), or "cancelled".
func (i *interruption) name() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.sig == nil {
		return "cancelled"
	}
	return i.sig.String()
}

// exitCode is 130 for SIGINT and 143 for SIGTERM (128 + the signal).
func (i *interruption) exitCode() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// interruptContext is cancelled by the first SIGINT or SIGTERM; the run
// then stops building and measuring and removes everything it made before
// returning. Later signals only say that teardown is under way: exiting
// before it ends would leave objects behind.
func interruptContext(stderr io.Writer) (context.Context, *interruption, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	in := &interruption{}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				in.mu.Lock()
				first := in.sig == nil
				if first {
					in.sig = s
				}
				in.mu.Unlock()
				if first {
					fmt.Fprintf(stderr, "\nsvclab: %v: stopping and removing the lab\n", s)
					cancel()
				} else {
					fmt.Fprintf(stderr, "svclab: %v: still removing the lab; wait for it to finish\n", s)
				}
			}
		}
	}()
	return ctx, in, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
