package runner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// chainListWalk times the chain-list walk of iptables-nft-restore on the
// machine (machine.Machine.ChainListWalk, about 20 seconds) when sc's sweep
// loads a dataplane whose restore keeps that list
// (dataplane.Info.ChainListRestore): the planner prices that dataplane's
// syncs with it. Nil otherwise, and when ctx ends during the walk.
func chainListWalk(ctx context.Context, sc *scenario.Scenario, opts Options) ([]results.ChainListStep, error) {
	if sc.Sweep == nil || !slices.ContainsFunc(sc.Sweep.Dataplanes, walksChainList) {
		return nil, nil
	}
	opts.logf("svclab: timing iptables-nft-restore's chain-list walk on this machine (about 20 s)")
	steps, err := opts.Machine.ChainListWalk(ctx)
	switch {
	case ctx.Err() != nil:
		// Interrupted: the run records what it has, as at any step
		// (runHere's Interrupted), without the walk.
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("time the chain-list walk of scenario %s: %w", sc.Name, err)
	}
	return steps, nil
}

func walksChainList(name string) bool {
	info, ok := dataplane.Lookup(name)
	return ok && info.ChainListRestore
}

// timeChainListWalk times the walk at the run's start (chainListWalk)
// and returns the options the run's sections get: with a deadline, they
// end as much earlier as the walk took, which keeps the time for the walk
// at the end (chainListWalkAgain) within the run's.
func timeChainListWalk(ctx context.Context, sc *scenario.Scenario, opts Options) ([]results.ChainListStep, Options, error) {
	started := time.Now()
	walk, err := chainListWalk(ctx, sc, opts)
	if err != nil || walk == nil || opts.Deadline.IsZero() {
		return walk, opts, err
	}
	opts.Deadline = opts.Deadline.Add(-time.Since(started))
	return walk, opts, nil
}

// chainListWalkAgain times the chain-list walk once more at the end of a
// run that timed it at its start, and appends it to results.jsonl
// (results.TypeChainListWalk): a restore of a large payload runs for many
// minutes through the machine's swings, and svclab plan prices it at the
// walks' mean, with a range over both (results.PoolChainListWalks). A walk
// that fails or is interrupted is logged and left out: the run's
// measurements are made by then.
func chainListWalkAgain(ctx context.Context, opts Options, w *results.Writer) {
	opts.logf("svclab: timing the chain-list walk again (about 20 s): a long restore runs through the machine's swings, so svclab plan pools this walk with the first")
	steps, err := opts.Machine.ChainListWalk(ctx)
	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		opts.logf("svclab: warning: the chain-list walk at the end of the run: %v (svclab plan prices with the first walk alone)", err)
		return
	}
	if err := w.Append(results.Record{Type: results.TypeChainListWalk, ChainListWalk: steps}); err != nil {
		opts.logf("svclab: warning: record the chain-list walk at the end of the run: %v", err)
	}
}
