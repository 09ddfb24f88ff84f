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
	if sc.Sweep == nil || len(sc.Sweep.SyncProbe) == 0 || !slices.ContainsFunc(sc.Sweep.Dataplanes, dumpsChains) {
		return nil, opts, nil
	}
	started := time.Now()
	opts.logf("svclab: timing the kernel's chain dump to nft on this machine, packed and spread (about a minute)")
	steps, err := opts.Machine.ChainDumpWalk(ctx, prefix)
	switch {
	case ctx.Err() != nil:
		return nil, opts, nil
	case err != nil:
		return nil, opts, fmt.Errorf("time the chain dump walk of scenario %s: %w", sc.Name, err)
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
