package cost

import (
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// TailRatio is how far a first packet's p99 lies above its p50 in the same
// measurement: each calibration point's own p99/p50 (one repetition's
// latency distribution), over the points. A rule walk's p99 at N is then its
// p50 at N times this ratio: the p50 line extrapolates, and the tail comes
// from the same distributions rather than from a second line fitted to p99s
// that scheduler delays scatter.
type TailRatio struct {
	// Median is the median ratio; Lo and Hi the smallest and largest.
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Points int     `json:"points"`
}

// fitTailRatio is the points' p99/p50 ratios (nil without 3 points with
// both percentiles).
func fitTailRatio(points []results.Point) *TailRatio {
	var ratios []float64
	for _, p := range points {
		if p.P50us > 0 && p.P99us >= p.P50us {
			ratios = append(ratios, p.P99us/p.P50us)
		}
	}
	if len(ratios) < 3 {
		return nil
	}
	slices.Sort(ratios)
	mid := len(ratios) / 2
	median := ratios[mid]
	if len(ratios)%2 == 0 {
		median = (ratios[mid-1] + ratios[mid]) / 2
	}
	return &TailRatio{Median: median, Lo: ratios[0], Hi: ratios[len(ratios)-1], Points: len(ratios)}
}

// apply is the p99 from a p50 prediction: the p50 times the median ratio,
// its interval the p50's scaled by the smallest and largest ratio.
func (r TailRatio) apply(p50 CostPrediction) CostPrediction {
	scale := func(e Estimate) Estimate {
		return Estimate{Value: e.Value * r.Median, Lo: e.Lo * r.Lo, Hi: e.Hi * r.Hi, NoInterval: e.NoInterval}
	}
	return CostPrediction{Added: scale(p50.Added), Total: scale(p50.Total), Points: r.Points}
}
