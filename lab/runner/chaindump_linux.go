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

// timeChainDumpWalk times the walk of the kernel's chain dump to nft on
// the machine (machine.Machine.ChainDumpWalk, about a minute, in
// namespaces under prefix) when sc's sweep loads a dataplane whose tool
// dumps the chains before every change (dataplane.Info.ChainDump) and
// probes syncs beyond its points (sweep.syncProbe, as svclab plan
// calibrate's sweep and the holdouts do): a sweep made to extrapolate
// syncs, which the planner prices that dataplane's incremental syncs for
// with the walk. Other sweeps (an A/B run, a test's) would spend the
// minute for nothing. It returns the options the run's sections get, with
// a deadline as much earlier as the walk took. Nil steps otherwise, and
// when ctx ends during the walk.
func timeChainDumpWalk(ctx context.Context, sc *scenario.Scenario, opts Options, prefix string) ([]results.ChainListStep, Options, error) {
	if !probesSyncsOf(sc, dumpsChains) {
		return nil, opts, nil
	}
	return timeMachineWalk(ctx, sc, opts, "the chain dump walk", "the kernel's chain dump to nft on this machine, packed and spread (about a minute)",
		func() ([]results.ChainListStep, error) { return opts.Machine.ChainDumpWalk(ctx, prefix) })
}

// timeAnonymousSetWalk times the kernel's walks per anonymous set on the
// machine (machine.Machine.AnonymousSetWalk, about 50 s, in namespaces
// under prefix) when sc's sweep probes syncs beyond its points
// (sweep.syncProbe) and loads nftables: the planner prices nftables' full
// syncs of Services with two or more endpoints with them. It returns as
// timeChainDumpWalk does.
func timeAnonymousSetWalk(ctx context.Context, sc *scenario.Scenario, opts Options, prefix string) ([]results.AnonymousSetStep, Options, error) {
	if !probesSyncsOf(sc, func(name string) bool { return name == string(dataplane.ModeNFTables) }) {
		return nil, opts, nil
	}
	return timeMachineWalk(ctx, sc, opts, "the anonymous set walks", "the kernel's walks per anonymous set on this machine (about 50 seconds)",
		func() ([]results.AnonymousSetStep, error) { return opts.Machine.AnonymousSetWalk(ctx, prefix) })
}

// probesSyncsOf says whether sc's sweep probes syncs beyond its points and
// loads a dataplane for which wanted holds.
func probesSyncsOf(sc *scenario.Scenario, wanted func(string) bool) bool {
	return sc.Sweep != nil && len(sc.Sweep.SyncProbe) > 0 && slices.ContainsFunc(sc.Sweep.Dataplanes, wanted)
}

// timeMachineWalk runs walk, saying first that it times what, and returns
// its steps with opts' deadline as much earlier as it took; nil steps when
// ctx ended during it.
func timeMachineWalk[S any](ctx context.Context, sc *scenario.Scenario, opts Options, name, what string, walk func() ([]S, error)) ([]S, Options, error) {
	started := time.Now()
	opts.logf("svclab: timing %s", what)
	steps, err := walk()
	switch {
	case ctx.Err() != nil:
		return nil, opts, nil
	case err != nil:
		return nil, opts, fmt.Errorf("time %s of scenario %s: %w", name, sc.Name, err)
	}
	if !opts.Deadline.IsZero() {
		opts.Deadline = opts.Deadline.Add(-time.Since(started))
	}
	return steps, opts, nil
}

func dumpsChains(name string) bool {
	info, ok := dataplane.Lookup(name)
	return ok && info.ChainDump
}
