package topo

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// CloseOnSignal closes the topology when one of sigs arrives (SIGINT and
// SIGTERM if none are given), then calls onClosed, if not nil, with the
// signal and Close's error; that is where a caller typically exits. It stops
// watching when ctx is done or stop is called; stop does not close the
// topology.
func (t *Topology) CloseOnSignal(ctx context.Context, onClosed func(os.Signal, error), sigs ...os.Signal) (stop func()) {
	if len(sigs) == 0 {
		sigs = []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer signal.Stop(ch)
		select {
		case <-ctx.Done():
		case sig := <-ch:
			err := t.Close()
			if onClosed != nil {
				onClosed(sig, err)
			}
		}
	}()
	return cancel
}
