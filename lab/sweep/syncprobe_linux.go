package sweep

import (
	"context"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// measureSyncProbe records one repetition of a sync probe: the load that
// set the lab up is the first repetition's; every later one removes the
// rules and times their full load again, so the probe's repetitions sample
// the spread of loads as the points' do (sweep.syncEachRepetition).
func (l *sweepLab) measureSyncProbe(ctx context.Context, spec *scenario.Sweep, rep int) ([]results.Point, error) {
	if rep > 1 {
		if err := l.resync(ctx, spec); err != nil {
			return nil, err
		}
	}
	p := l.base
	p.Repetition = rep
	return []results.Point{p}, nil
}
