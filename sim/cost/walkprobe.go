package cost

import (
	"fmt"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// WalkCurve is a rule-walk dataplane's walk probe at one position
// (sweep.walkProbe): the first-packet p50 after a walk of the KUBE-SERVICES
// rules of Services[i] services, in a ruleset with those rules and the
// target services' chains alone. It is how the walk's cost grows past the
// calibrated sizes, measured rather than extrapolated: the cost per rule
// rises once the rules walked outgrow the CPU's caches (on this project's
// reference machine iptables-legacy's probe went from about 5 ns per rule
// up to 5,000 services to 7.7 ns between 40,000 and 80,000), which no line
// over the calibrated sizes can show.
type WalkCurve struct {
	// Position is the probe's: last (the walk of all Services rules) or
	// uniform (connections to services spread over all of them).
	Position string `json:"position"`
	// Services are the probed sizes, ascending; P50us the median p50 over
	// the probe's repetitions at each, SD their standard deviation and
	// Repetitions their count (the fewest of any size).
	Services    []float64 `json:"services"`
	P50us       []float64 `json:"p50_us"`
	SD          []float64 `json:"sd_us"`
	Repetitions int       `json:"repetitions"`
	// Validation is how far the probe's growth over the last calibrated
	// step (the second largest calibrated size to the largest) was from the
	// sweep's own, relative to the probe's: the probe is not the full
	// ruleset, and on this machine's own data its growth was off by this
	// share, which a prediction's growth may then be off by too.
	Validation float64 `json:"validation,omitempty"`
	// TailUs and TailSD are the median tail (p99 − p50, µs) over the
	// probe's repetitions at each size and its standard deviation, when
	// every size recorded them: how the tail grows past the calibrated
	// sizes (tailGrowth).
	TailUs []float64 `json:"tail_us,omitempty"`
	TailSD []float64 `json:"tail_us_sd,omitempty"`
}

// walkCurves builds a dataplane's walk curves from a run's walk probes
// (medians with their repetitions' standard deviation in Extra), one per
// position with two sizes or more, validated against the calibration's own
// points (positioned, one dataplane's, N ≤ MaxN).
func walkCurves(probes []results.Point, dataplane string, calibration []results.Point) []WalkCurve {
	byPosition := map[string][]results.Point{}
	for _, p := range probes {
		if p.Dataplane == dataplane && p.P50us > 0 {
			byPosition[p.Position] = append(byPosition[p.Position], p)
		}
	}
	var out []WalkCurve
	for _, pos := range []string{PositionLast, PositionUniform} {
		points := byPosition[pos]
		if len(points) < 2 {
			continue
		}
		slices.SortFunc(points, func(a, b results.Point) int { return a.Services - b.Services })
		c := WalkCurve{Position: pos, Repetitions: points[0].Repetitions}
		for _, p := range points {
			c.Services, c.P50us = append(c.Services, float64(p.Services)), append(c.P50us, p.P50us)
			c.SD = append(c.SD, p.Extra[results.ExtraP50SD])
			c.Repetitions = min(c.Repetitions, p.Repetitions)
		}
		c.withTails(points)
		c.validate(positioned(calibration, pos))
		out = append(out, c)
	}
	return out
}

// at interpolates ys at n services: linearly between the probed sizes, and
// along the nearest segment outside them.
func (c WalkCurve) at(ys []float64, n float64) float64 {
	i := c.segment(n)
	return onChord(c.Services[i-1], ys[i-1], c.Services[i], ys[i], n)
}

// p50At interpolates the probe's p50 at n services as a power law between
// the probed sizes (y = y0·(n/x0)^b through both ends); outside them, and
// where a p50 is not positive, linearly (at). A walk's cost per rule rises
// as the rules outgrow the caches, so the p50 is convex in n and the chord
// between two probes lies above it: on the reference VM's later instance
// the probes at 40,000 and 80,000 took 342 and 1,391 µs (×4.1 for ×2) and
// the 50,000 point 497 µs, where the chord gives 604 and the power law 538
// (results/plan-holdout/native-q).
func (c WalkCurve) p50At(n float64) float64 { return c.interpolate(c.P50us, n) }

// interpolate is ys at n services as p50At reads the p50s: a power law
// between the probed sizes, linear outside them or where a y is not
// positive.
func (c WalkCurve) interpolate(ys []float64, n float64) float64 {
	i := c.segment(n)
	x0, x1, y0, y1 := c.Services[i-1], c.Services[i], ys[i-1], ys[i]
	switch {
	case n == x0:
		return y0
	case n == x1:
		return y1
	case n < x0 || n > x1 || y0 <= 0 || y1 <= 0:
		return c.at(ys, n)
	}
	return y0 * math.Pow(n/x0, math.Log(y1/y0)/math.Log(x1/x0))
}

// segment is the index i of the probed sizes' segment [i−1, i] that n
// falls in, or the nearest one outside them.
func (c WalkCurve) segment(n float64) int {
	i := 1
	for i < len(c.Services)-1 && c.Services[i] < n {
		i++
	}
	return i
}

// growth is how much the probe's p50 grows from anchor to n services
// (p50At), with a 95% interval for what a sweep will measure there
// (Student's t over the repetitions, the standard deviations interpolated
// linearly): the two means' uncertainty, plus the spread of a median of as
// many repetitions at n (π/2·sd²/R), since each load leaves a long walk in
// another state (233-416 µs over 8 reloads of the same 50,000 services,
// results/plan-holdout/legacy-walk-modes). Between two probes the curve's
// shape is not measured, so the interval also reaches the chord's growth
// (a curve that bends at one size, not gradually, follows the chord). No
// interval from a single repetition.
func (c WalkCurve) growth(anchor, n float64) Estimate { return c.growthOf(c.P50us, c.SD, anchor, n) }

// growthOf is growth for any of the probe's medians ys with their
// standard deviations sds.
func (c WalkCurve) growthOf(ys, sds []float64, anchor, n float64) Estimate {
	g := exact(c.interpolate(ys, n) - c.interpolate(ys, anchor))
	if c.Repetitions < 2 {
		g.NoInterval = true
		return g
	}
	sdN, sdA := math.Max(c.at(sds, n), 0), math.Max(c.at(sds, anchor), 0)
	half := tQuantile(c.Repetitions-1) * math.Sqrt((sdN*sdN*(1+math.Pi/2)+sdA*sdA)/float64(c.Repetitions))
	chord := c.at(ys, n) - c.at(ys, anchor)
	g.Lo, g.Hi = min(g.Value, chord)-half, max(g.Value, chord)+half
	return g
}

// validate sets Validation from the sweep's points at the curve's
// position: the p50s at its two largest sizes against the probe's growth
// between them.
func (c *WalkCurve) validate(points []results.Point) {
	p50 := map[int]float64{}
	for _, p := range points {
		if p.P50us > 0 {
			p50[p.Services] = p.P50us
		}
	}
	var sizes []int
	for n := range p50 {
		sizes = append(sizes, n)
	}
	if len(sizes) < 2 {
		return
	}
	slices.Sort(sizes)
	nb, na := sizes[len(sizes)-2], sizes[len(sizes)-1]
	if probe := c.growth(float64(nb), float64(na)).Value; probe > 0 {
		c.Validation = math.Abs(p50[na]-p50[nb]-probe) / probe
	}
}

// covers says whether the probe reaches down to the anchor: its growth is
// then measured from the calibration's largest size on.
func (c WalkCurve) covers(anchor float64) bool { return c.Services[0] <= anchor }

// largest is the largest probed size.
func (c WalkCurve) largest() float64 { return c.Services[len(c.Services)-1] }

// walkFor is the walk curve for a query position (middle and first walk as
// the last position's curve does, over fewer rules) and the KUBE-SERVICES
// size it is read at for evaluations: the walk itself, or, for uniformly
// spread connections (a mean walk of (n+1)/2), all n rules.
func (dm *DataplaneModel) walkFor(position string, evals float64) (*WalkCurve, float64) {
	want, size := PositionLast, evals
	if position == PositionUniform {
		want, size = PositionUniform, 2*evals-1
	}
	for i := range dm.Walk {
		if dm.Walk[i].Position == want {
			return &dm.Walk[i], size
		}
	}
	return nil, 0
}

// p50At is the p50 for a position at evaluations: the calibrated curve
// (a bent walk's medians, betweenMedians) within the calibrated sizes and
// beyond them without a walk probe; beyond them when a walk probe covers
// the position, the curve's value at the largest calibrated size plus the
// probe's growth from that size on (warning when the query is beyond the
// probe too).
func (dm *DataplaneModel) p50At(position string, evals float64, services int, warn func(string)) CostPrediction {
	c := dm.p50For(position)
	if dm.Lookup != LinearWalk {
		return predictCost(c, evals, services)
	}
	walk, size := dm.walkFor(position, evals)
	anchorEvals, _ := Evaluations(dm.Lookup, position, dm.MaxServices)
	if walk == nil || position == PositionFirst || evals <= anchorEvals {
		return c.predictOnMedians(evals, services)
	}
	_, anchorSize := dm.walkFor(position, anchorEvals)
	if !walk.covers(anchorSize) {
		warn(fmt.Sprintf("%s: the walk probe starts at %.0f services, above the largest calibrated N (%d): not used", dm.Dataplane, walk.Services[0], dm.MaxServices))
		return c.predictOnMedians(evals, services)
	}
	if size > walk.largest() {
		warn(fmt.Sprintf("%s: a walk of %.0f services' rules is beyond the walk probe's largest (%.0f): its last segment is extrapolated", dm.Dataplane, size, walk.largest()))
	}
	out := c.predictOnMedians(anchorEvals, dm.MaxServices)
	g := walk.growth(anchorSize, size)
	// The probe's growth may be off by its validation share too.
	off := math.Abs(g.Value) * walk.Validation
	g.Lo, g.Hi = math.Min(g.Lo, g.Value-off), math.Max(g.Hi, g.Value+off)
	out.Total = out.Total.Plus(g).NonNegative()
	out.Added = out.Added.Plus(g).NonNegative()
	perRule := out.Added.Scale(1 / evals) // the mean over the walk, past the caches included
	out.PerEvaluation = &perRule
	return out
}
