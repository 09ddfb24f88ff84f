package cost

import (
	"math"
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// TailRatio is how far a first packet's p99 lies above its p50 in the same
// measurement (one repetition's latency distribution), over the
// calibration points. A rule walk's p99 at N comes from its p50 at N: the
// p50 line extrapolates, and the tail comes from the same distributions
// rather than from a second line fitted to p99s that scheduler delays
// scatter.
//
// The tail is added, not multiplied: a p99's excess over its p50 is mostly
// timer and scheduling jitter, about the same at every size, so a ratio
// taken at small N (where the walk is short and the jitter doubles the p50)
// overstates the p99 of a long walk (results/plan-holdout: the ratio model
// was +50 to +100% off at 10× on the quiet sweep). The p99 at N is the p50
// at N plus the points' median excess; its interval runs from the p50's
// lower bound plus the excess's lower bound to its upper bound plus the
// excess's upper bound.
//
// The excess's bounds are the wider of the points' smallest and largest
// excess and a 95% prediction interval for one more point's (mean ± t·s·
// √(1+1/n) over the n points): the smallest and largest of n values hold
// one more value of the same kind only (n−1)/(n+1) of the time, 60% for
// the 4 points of a calibration on N ≤ 5,000 (results/plan-holdout,
// native-q: iptables-nft's p99 at the last position of 50,000 services,
// 3,918 µs, lay above such an interval's top, 3,819).
type TailRatio struct {
	// Median is the median ratio p99/p50; Lo and Hi the smallest and
	// largest (reported, not used to predict).
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Points int     `json:"points"`
	// Excess is p99 − p50 in µs over the points: the median, the smallest
	// and the largest.
	Excess Spread `json:"excess_us"`
	// ExcessBounds is the interval the excess is predicted in: Excess's
	// smallest and largest widened to a prediction interval for one more
	// point's excess (excessBounds).
	ExcessBounds Spread `json:"excess_bounds_us"`
}

// Spread is a sample's median, smallest and largest value.
type Spread struct {
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
}

// spreadOf is the median, smallest and largest of v (not empty).
func spreadOf(v []float64) Spread {
	s := slices.Sorted(slices.Values(v))
	mid := len(s) / 2
	median := s[mid]
	if len(s)%2 == 0 {
		median = (s[mid-1] + s[mid]) / 2
	}
	return Spread{Median: median, Lo: s[0], Hi: s[len(s)-1]}
}

// fitTailRatio is the points' p99/p50 ratios and p99 − p50 excesses (nil
// without 3 points with both percentiles).
func fitTailRatio(points []results.Point) *TailRatio {
	var ratios, excess []float64
	for _, p := range points {
		if p.P50us > 0 && p.P99us >= p.P50us {
			ratios = append(ratios, p.P99us/p.P50us)
			excess = append(excess, p.P99us-p.P50us)
		}
	}
	if len(ratios) < 3 {
		return nil
	}
	r := spreadOf(ratios)
	return &TailRatio{Median: r.Median, Lo: r.Lo, Hi: r.Hi, Points: len(ratios),
		Excess: spreadOf(excess), ExcessBounds: excessBounds(excess)}
}

// excessBounds is the points' median excess with the wider of their
// smallest and largest and the prediction interval mean ± t·s·√(1+1/n)
// for one more point's excess (Student's t over n−1 degrees of freedom).
func excessBounds(excess []float64) Spread {
	b, next := spreadOf(excess), nextValueEstimate(excess)
	b.Lo = math.Max(0, math.Min(b.Lo, next.Lo)) // a p99 is never below its p50
	b.Hi = math.Max(b.Hi, next.Hi)
	return b
}

// apply is the p99 from a p50 prediction: the p50 plus the median excess,
// its interval the p50's lower bound plus the excess's lower bound to its
// upper bound plus the excess's upper bound (ExcessBounds; a TailRatio
// built without them, as a test's literal, uses the points' smallest and
// largest: models are fitted from runs each time, never read back).
func (r TailRatio) apply(p50 CostPrediction) CostPrediction {
	bounds := r.ExcessBounds
	if bounds == (Spread{}) {
		bounds = r.Excess
	}
	add := func(e Estimate) Estimate {
		return Estimate{Value: e.Value + r.Excess.Median, Lo: e.Lo + bounds.Lo, Hi: e.Hi + bounds.Hi, NoInterval: e.NoInterval}.NonNegative()
	}
	return CostPrediction{Added: p50.Added, Total: add(p50.Total), Points: r.Points}
}
