package cost

import (
	"math"

	"github.com/svclab/svclab/sim/results"
)

// MedianSpread is how far a calibration size's median reaches within its
// own 95% interval over the size's loads (stats.MedianInterval), averaged
// over the sizes that had loads enough for one: the scatter of one more
// median measured at another size, whatever the sizes' medians happened
// to show between them.
type MedianSpread struct {
	Below float64 `json:"below"`
	Above float64 `json:"above"`
	Sizes int     `json:"sizes"`
}

// withMedianFloor widens a MapLookup constant's interval to at least the
// median spread of its points' loads (reps: the dataplane's repetitions,
// matched to each point by size and position). The constant's interval is
// a t interval over a few sizes' medians, which can agree by chance far
// more closely than one median's own scatter allows: nftables' p99 at the
// last position in results/plan-holdout/native-lookup, medians 64.2, 64.9,
// 63.5, 64.1 µs at 1 to 5,000 Services gave [62.1, …] against 59.0
// measured at 50,000, while each median's own interval over its 30 loads
// was about ±8 µs. Without loads (a summary, or under 6 repetitions a size)
// it changes nothing.
func (c *CostCurve) withMedianFloor(points, reps []results.Point, value func(results.Point) float64) {
	if c.Lookup != MapLookup || c.Mean.NoInterval {
		return
	}
	spread, ok := medianSpread(points, reps, value)
	if !ok {
		return
	}
	c.MedianSpread = &spread
	c.Mean.Lo = math.Min(c.Mean.Lo, c.Mean.Value-spread.Below)
	c.Mean.Hi = math.Max(c.Mean.Hi, c.Mean.Value+spread.Above)
}

// medianSpread averages, over the points with an interval, how far below
// and above each point's value its loads' median interval reaches.
func medianSpread(points, reps []results.Point, value func(results.Point) float64) (MedianSpread, bool) {
	var s MedianSpread
	for _, p := range points {
		v := value(p)
		if !(v > 0) {
			continue
		}
		_, lo, hi := measuredInterval(repetitionsOf(reps, p), value)
		if hi == 0 {
			continue
		}
		s.Below += math.Max(0, v-lo)
		s.Above += math.Max(0, hi-v)
		s.Sizes++
	}
	if s.Sizes == 0 {
		return s, false
	}
	s.Below /= float64(s.Sizes)
	s.Above /= float64(s.Sizes)
	return s, true
}
