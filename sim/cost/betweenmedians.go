package cost

import (
	"cmp"
	"slices"

	"github.com/svclab/svclab/sim/stats"
)

// CurvePoint is one calibrated size of a cost curve: X its evaluations
// (rules walked), Y the mean of its medians there.
type CurvePoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// mediansByX gathers the points (x, y) by x, each distinct x once with the
// mean of its y, sorted by x.
func mediansByX(x, y []float64) []CurvePoint {
	sums := map[float64][2]float64{}
	for i, v := range x {
		s := sums[v]
		sums[v] = [2]float64{s[0] + y[i], s[1] + 1}
	}
	out := make([]CurvePoint, 0, len(sums))
	for v, s := range sums {
		out = append(out, CurvePoint{X: v, Y: s[0] / s[1]})
	}
	slices.SortFunc(out, func(a, b CurvePoint) int { return cmp.Compare(a.X, b.X) })
	return out
}

// withMediansWherePoor keeps a LinearWalk curve's medians (x evaluations,
// y cost) when its line fits them poorly (R² below minR2, 3 sizes or
// more): a walk whose cost per rule rises past the caches bends, and the
// line then misses the calibration's own sizes both ways (iptables-legacy's
// last-position p50 in results/plan-default-evening/recording-2124: −31%
// to +62% of its own medians, R² 0.84). A straight walk keeps its line,
// which averages the loads' noise the medians carry.
func (c *CostCurve) withMediansWherePoor(x, y []float64, minR2 float64) {
	if c.Lookup != LinearWalk || !hasInterval(c.Line) || c.Line.R2 >= minR2 || distinctCount(x) < 3 {
		return
	}
	c.Medians = mediansByX(x, y)
}

// betweenMedians is line, the curve's prediction at evals, moved onto the
// curve's medians when it kept them (onMedians); its interval keeps the
// line's width about the new value.
func (c CostCurve) betweenMedians(line CostPrediction, evals float64) CostPrediction {
	v, ok := c.onMedians(evals)
	if !ok {
		return line
	}
	shift := v - line.Total.Value
	line.Total = line.Total.Plus(exact(shift)).NonNegative()
	line.Added = line.Added.Plus(exact(shift)).NonNegative()
	if evals > 0 {
		per := line.Added.Scale(1 / evals)
		line.PerEvaluation = &per
	}
	line.BetweenMedians = true
	return line
}

// predictOnMedians is the curve's prediction at evals (predictCost) moved
// onto its medians where it kept them (betweenMedians).
func (c CostCurve) predictOnMedians(evals float64, services int) CostPrediction {
	return c.betweenMedians(predictCost(c, evals, services), evals)
}

// onMedians is the curve's value at x read off its medians: between the two
// that bracket x (interpolateMedians) or, past the largest, that median plus
// the line's growth from its size, so that a prediction does not step down
// where the medians end (recording-2330's iptables-legacy at the last
// position: 1,751 µs at 100,000 Services, 1,392 at 100,001 from the line);
// false below the smallest median or with fewer than two.
func (c CostCurve) onMedians(x float64) (float64, bool) {
	if v, ok := interpolateMedians(c.Medians, x); ok {
		return v, true
	}
	if len(c.Medians) < 2 || x < c.Medians[0].X {
		return 0, false
	}
	largest := c.Medians[len(c.Medians)-1]
	atX, _, _ := stats.Predict(c.Line, x)
	atLargest, _, _ := stats.Predict(c.Line, largest.X)
	return largest.Y + atX - atLargest, true
}

// interpolateMedians is the value at x read linearly between the two
// medians that bracket it; false outside them or with fewer than 2.
func interpolateMedians(medians []CurvePoint, x float64) (float64, bool) {
	if len(medians) < 2 || x < medians[0].X || x > medians[len(medians)-1].X {
		return 0, false
	}
	i, found := slices.BinarySearchFunc(medians, x, func(p CurvePoint, x float64) int { return cmp.Compare(p.X, x) })
	if found {
		return medians[i].Y, true
	}
	lo, hi := medians[i-1], medians[i]
	return onChord(lo.X, lo.Y, hi.X, hi.Y, x), true
}
