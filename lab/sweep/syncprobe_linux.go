package sweep

import (
	"context"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// measureSyncProbe records one repetition of a sync probe: the load that
// set the lab up is the first repetition's; every later one removes the
// rules and times their full load again, so the probe's repetitions sample
// the spread of loads as the points' do (sweep.syncEachRepetition); a
// lookup probe (sweep.lookupProbe) keeps its one load. A
// probe that looks its services up in a map (looksUpUniform) also probes
// the uniform position on the rules it loaded.
func (l *sweepLab) measureSyncProbe(ctx context.Context, spec *scenario.Sweep, rep int) ([]results.Point, error) {
	if rep > 1 && !l.plan.lookupProbe {
		if err := l.resync(ctx, spec); err != nil {
			return nil, err
		}
	}
	if l.looksUpUniform(spec) {
		p, err := l.probe(ctx, spec, scenario.PositionUniform, rep)
		if err != nil {
			return nil, err
		}
		return []results.Point{p}, nil
	}
	p := l.base
	p.Repetition = rep
	return []results.Point{p}, nil
}

// looksUpUniform says whether a sync probe also measures connections to
// uniformly random services (a lookup probe): for a dataplane that finds a
// service in a map (dataplane.MapLookup) when the sweep probes the uniform
// position. Such a lookup walks nothing, but the larger the map, the more
// often a random service's element misses the caches, and a median of
// loads at one size moves with how many of them met a slow vCPU
// (nftables' uniform p50 in results/plan-holdout/native-dump: 20.5 µs at
// 5,000 Services, 25.3 at 50,000), so the probes measure the lookup at
// sizes the traffic points do not reach, as the walk probes measure a rule
// walk's. The probe's traffic comes after its syncs are timed.
func (l *sweepLab) looksUpUniform(spec *scenario.Sweep) bool {
	info, ok := dataplane.Lookup(l.plan.dataplane)
	return ok && info.Lookup == dataplane.MapLookup && slices.Contains(spec.Positions, scenario.PositionUniform)
}
