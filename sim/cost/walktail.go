package cost

import "github.com/svclab/svclab/sim/results"

// withTails sets the curve's TailUs and TailSD from its probe points'
// Extra (metric.AggregateWalkProbes), when every size recorded a tail.
func (c *WalkCurve) withTails(points []results.Point) {
	var tails, sds []float64
	for _, p := range points {
		t, ok := p.Extra[results.ExtraTailUs]
		if !ok {
			return
		}
		tails, sds = append(tails, t), append(sds, p.Extra[results.ExtraTailSD])
	}
	c.TailUs, c.TailSD = tails, sds
}

// tailGrowth is how much a rule walk's tail (p99 − p50) at a fixed
// position grows from the largest calibrated size to a walk of evals rules, read from the last
// position's walk probe as the p50's growth is (growthOf), and false when
// there is none to read. TailRatio takes the tail as the same at every
// size, as it was on the reference VM's first instance, where the probes'
// tail at 40,000 and 80,000 services was 280-480 µs; on its later one it
// was 440 and 735 µs there (results/plan-holdout/native-q), and
// iptables-legacy's p99 at 50,000 came out 31-37% short of the measured
// in native-o, -p and -q without it. Uniformly spread connections take
// none: their p99 is the walk's spread over the positions more than one
// walk's tail, and with the last position's tail growth it came out 28-49%
// high in 5 of the 12 recorded native holdouts (iptables-legacy).
func (dm *DataplaneModel) tailGrowth(position string, evals float64) (Estimate, bool) {
	if dm.Lookup != LinearWalk || position == PositionUniform {
		return Estimate{}, false
	}
	walk, size := dm.walkFor(PositionLast, evals)
	anchor, _ := Evaluations(dm.Lookup, PositionLast, dm.MaxServices)
	if walk == nil || walk.TailUs == nil || size <= anchor || !walk.covers(anchor) {
		return Estimate{}, false
	}
	return walk.growthOf(walk.TailUs, walk.TailSD, anchor, size), true
}

// tailEvals is the walk a query's p99 is read at for uniformly spread
// connections: the walk of the slowest 1% (tailBase).
func tailEvals(q Query, dm *DataplaneModel) float64 {
	last, _ := Evaluations(dm.Lookup, PositionLast, q.Services)
	if q.Composition != nil {
		last, _ = q.Composition.evaluations(dm.Lookup, PositionLast)
	}
	return uniformTailQuantile * last
}
