package sweep

import (
	"context"

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
	if looksUpUniform(spec, l.plan.dataplane) {
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
