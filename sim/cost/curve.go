package cost

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/stats"
	"gonum.org/v1/gonum/stat"
)

// CostCurve is one per-connection cost (a latency percentile in µs, or CPU
// µs per connection) as calibrated for one dataplane.
type CostCurve struct {
	Metric string `json:"metric"`
	Lookup Lookup `json:"lookup"`
	// Line is, for LinearWalk, the cost against evaluations (rules walked):
	// Slope is the cost per rule, Intercept the base. For MapLookup it is
	// the cost against services, used only to bound how much the cost
	// could grow with N (its slope interval).
	Line stats.Fit `json:"line"`
	// Mean is the MapLookup constant: the mean cost over the calibration
	// points with a 95% prediction interval for one more point's
	// (nextValueEstimate), widened to the MedianSpread when there is one.
	Mean Estimate `json:"mean"`
	// MedianSpread, for a MapLookup constant calibrated from a sweep with
	// its loads (results.jsonl, 6 repetitions a size or more), is how far
	// a size's median reaches within its own interval over its loads: the
	// Mean's interval is at least that wide (withMedianFloor).
	MedianSpread *MedianSpread `json:"median_spread,omitempty"`
	// LogLine, set for a MapLookup's uniform p50 with 3 points or more at 2
	// sizes or more, is the cost against ln N, which Total and Added then
	// use: a map lookup walks nothing, but the more elements its table
	// holds, the more often a lookup of a random one misses the caches, so
	// its cost creeps up with the table's size (one hot service's lookup
	// stays cached: the fixed positions keep the constant) (nftables' uniform p50: 15.5, 17.8, 18.6,
	// 19.2 µs at N = 1, 1,000, 2,500, 5,000 in results/plan-holdout/native-d).
	LogLine *stats.Fit `json:"log_line,omitempty"`
	// ProbeLine, set with lookup probes, is the cost against ln N on the
	// segment from the points' largest size through the probes
	// (withLookupProbes): Total predicts with it, and Added is its total
	// less the LogLine's cost at one service.
	ProbeLine *stats.Fit `json:"probe_line,omitempty"`
	// Repetitions is how many points the LogLine has per size: its
	// interval is for a median of that many repetitions measured at the
	// predicted size (stats.PredictMedian), as a holdout measures it.
	Repetitions int `json:"repetitions,omitempty"`
	// LookupProbes are the sizes of the lookup probes (sync probes that
	// also measured the uniform position) the ProbeLine was fitted on
	// beside the points: a prediction's extrapolation is from the largest.
	LookupProbes []int `json:"lookup_probes,omitempty"`
	// Points is the number of calibration points; MaxX the largest
	// evaluations (LinearWalk) or services (MapLookup) among them.
	Points int     `json:"points"`
	MaxX   float64 `json:"max_x"`
	// Medians, kept for a LinearWalk curve its line fits poorly
	// (withMediansWherePoor), are the calibration's medians by
	// evaluations: within them a walk is read between the two that bracket
	// it (betweenMedians), not off the line.
	Medians []CurvePoint `json:"medians,omitempty"`
}

// fitCostCurve calibrates a cost curve from points (x, y): x is
// evaluations for LinearWalk, services for MapLookup.
func fitCostCurve(metric string, lookup Lookup, x, y []float64) (CostCurve, error) {
	c := CostCurve{Metric: metric, Lookup: lookup, Points: len(x)}
	for _, v := range x {
		c.MaxX = math.Max(c.MaxX, v)
	}
	if lookup == MapLookup {
		if n := distinctCount(x); n < 2 {
			return c, fmt.Errorf("%s: %d measured sizes; showing a cost constant in N needs 2", metric, n)
		}
		c.Mean = nextValueEstimate(y)
		c.Line, _ = fitLine(x, y) // a growth bound only when there are points enough
		return c, nil
	}
	line, err := fitLine(x, y)
	if err != nil {
		return c, fmt.Errorf("%s: %w", metric, err)
	}
	c.Line = line
	return c, nil
}

// fitLine is stats.LinearFit for three points or more, and the line through
// the points (with no interval) for two.
func fitLine(x, y []float64) (stats.Fit, error) {
	if len(x) >= 3 {
		return stats.LinearFit(x, y)
	}
	if len(x) != 2 || x[0] == x[1] {
		return stats.Fit{}, fmt.Errorf("%d points at %d distinct sizes; a line needs 2", len(x), distinctCount(x))
	}
	intercept, slope := stat.LinearRegression(x, y, nil, false)
	return stats.Fit{Slope: slope, Intercept: intercept, SlopeLo: slope, SlopeHi: slope,
		InterceptLo: intercept, InterceptHi: intercept, R2: 1, N: 2}, nil
}

// onChord is the value at x on the straight line through (x0, y0) and
// (x1, y1): between two measured sizes, or past them along that segment.
func onChord(x0, y0, x1, y1, x float64) float64 {
	return y0 + (y1-y0)*(x-x0)/(x1-x0)
}

func distinctCount(x []float64) int {
	seen := map[float64]bool{}
	for _, v := range x {
		seen[v] = true
	}
	return len(seen)
}

// withLogGrowth fits a MapLookup curve's LogLine on its points (x
// services, y cost); with too few points or sizes it leaves the constant.
func (c *CostCurve) withLogGrowth(x, y []float64) {
	if c.Lookup != MapLookup || len(x) < 3 || distinctCount(x) < 2 {
		return
	}
	if f, err := fitLogLine(x, y); err == nil {
		c.LogLine, c.Repetitions = &f, max(len(x)/distinctCount(x), 1)
	}
}

// fitLogLine fits y against ln x.
func fitLogLine(x, y []float64) (stats.Fit, error) {
	lnx := make([]float64, len(x))
	for i, v := range x {
		lnx[i] = math.Log(v)
	}
	return stats.LinearFit(lnx, y)
}

// withLookupProbes fits the ProbeLine on the segment (x services, y cost)
// from the points' largest size through the lookup probes above it, when
// the LogLine is set and the segment has 3 sizes, and records the probes'
// sizes.
func (c *CostCurve) withLookupProbes(x, y []float64) {
	if c.LogLine == nil || distinctCount(x) < 3 {
		return
	}
	f, err := fitLogLine(x, y)
	if err != nil {
		return
	}
	c.ProbeLine = &f
	for _, n := range x {
		if n > c.MaxX && !slices.Contains(c.LookupProbes, int(n)) {
			c.LookupProbes = append(c.LookupProbes, int(n))
		}
	}
}

// probedExtrapolation is services over the largest lookup probe, 0 without
// probes.
func (c CostCurve) probedExtrapolation(services int) float64 {
	if len(c.LookupProbes) == 0 {
		return 0
	}
	return float64(services) / float64(slices.Max(c.LookupProbes))
}

// hasInterval says whether the fit has degrees of freedom for an interval.
func hasInterval(f stats.Fit) bool { return f.N >= 3 }

// Added is the part of the cost that the lookup adds for a first packet
// doing evaluations (LinearWalk), or for n services (MapLookup, whose
// evaluations do not grow: with a LogLine its growth from one service,
// with a ProbeLine too that line's total less the LogLine's one service,
// else zero with the growth the calibration cannot rule out as the upper
// bound). It is never negative.
func (c CostCurve) Added(evaluations float64, services int) Estimate {
	if c.ProbeLine != nil {
		return c.Total(evaluations, services).Plus(exact(-c.LogLine.Intercept)).NonNegative()
	}
	if c.LogLine != nil {
		ln := math.Log(float64(max(services, 1)))
		return Estimate{Value: c.LogLine.Slope * ln, Lo: c.LogLine.SlopeLo * ln, Hi: c.LogLine.SlopeHi * ln}.NonNegative()
	}
	if c.Lookup == MapLookup {
		e := exact(0)
		if hasInterval(c.Line) {
			e.Hi = math.Max(0, c.Line.SlopeHi*float64(services))
		} else {
			e.NoInterval = true
		}
		return e
	}
	e := Estimate{Value: c.Line.Slope * evaluations, Lo: c.Line.SlopeLo * evaluations, Hi: c.Line.SlopeHi * evaluations,
		NoInterval: !hasInterval(c.Line)}
	return e.NonNegative()
}

// Total is the whole cost at evaluations (LinearWalk: base + evaluations ×
// per rule, with stats.Predict's 95% interval for the mean) or at n
// services (MapLookup: the ProbeLine, else the LogLine, at ln n with its 95% interval for a
// median of Repetitions measurements there (the scatter of spread
// connections' cache misses between loads is in it), or
// without one the constant, its upper bound raised by the growth Added
// allows). It is never negative (a line with a negative base can
// dip below zero near zero evaluations; warnings says so).
func (c CostCurve) Total(evaluations float64, services int) Estimate {
	if line := cmp.Or(c.ProbeLine, c.LogLine); line != nil {
		y, lo, hi := stats.PredictMedian(*line, math.Log(float64(max(services, 1))), c.Repetitions)
		return Estimate{Value: y, Lo: lo, Hi: hi}.NonNegative()
	}
	if c.Lookup == MapLookup {
		e := c.Mean
		e.Hi += c.Added(evaluations, services).Hi
		return e.NonNegative()
	}
	y, lo, hi := stats.Predict(c.Line, evaluations)
	return Estimate{Value: y, Lo: lo, Hi: hi, NoInterval: !hasInterval(c.Line)}.NonNegative()
}

// PerEvaluation is the cost of one evaluation (the slope, LinearWalk only)
// with its 95% interval.
func (c CostCurve) PerEvaluation() Estimate {
	return Estimate{Value: c.Line.Slope, Lo: c.Line.SlopeLo, Hi: c.Line.SlopeHi, NoInterval: !hasInterval(c.Line)}
}

// warnings describes what makes the curve doubtful: a poor fit, a
// negative base (the curve bends upward over the calibration range), a
// fit without interval, or a MapLookup cost that grows with N.
func (c CostCurve) warnings(dataplane string, minR2 float64) []string {
	var out []string
	name := dataplane + " " + c.Metric
	switch {
	case c.Lookup == MapLookup && hasInterval(c.Line) && c.Line.SlopeLo > 0:
		out = append(out, fmt.Sprintf("%s grows with N although its lookup is constant: slope %.3g [%.3g, %.3g] per service; the constant model may underestimate",
			name, c.Line.Slope, c.Line.SlopeLo, c.Line.SlopeHi))
	case c.Lookup == MapLookup && !hasInterval(c.Line):
		out = append(out, fmt.Sprintf("%s: fewer than 3 calibration points, so how much it grows with N is not bounded", name))
	case c.Lookup == LinearWalk && !hasInterval(c.Line):
		out = append(out, fmt.Sprintf("%s: a line through 2 points, no interval", name))
	case c.Lookup == LinearWalk && c.Line.R2 < minR2 && len(c.Medians) > 0:
		out = append(out, fmt.Sprintf("%s: poor linear fit (R² %.3f < %.2f); within the calibrated sizes a walk is read between the medians that bracket it, beyond them it grows from the largest median, doubtful",
			name, c.Line.R2, minR2))
	case c.Lookup == LinearWalk && c.Line.R2 < minR2:
		out = append(out, fmt.Sprintf("%s: poor linear fit (R² %.3f < %.2f); predictions are doubtful", name, c.Line.R2, minR2))
	}
	if c.Lookup == LinearWalk && c.Line.Intercept < 0 {
		out = append(out, fmt.Sprintf("%s: negative base (%.3g): the measured curve bends upward, so the line underestimates the cost per rule at large N",
			name, c.Line.Intercept))
	}
	return out
}
