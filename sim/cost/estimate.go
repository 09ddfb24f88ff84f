package cost

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of every interval the model reports.
const Confidence = 0.95

// Estimate is a predicted value with its 95% interval [Lo, Hi].
type Estimate struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// NoInterval is set when the fit had no spare degrees of freedom (two
	// points for a line, three for a quadratic): Lo = Hi = Value then says
	// nothing about the uncertainty.
	NoInterval bool `json:"no_interval,omitempty"`
}

// exact returns an estimate without uncertainty.
func exact(v float64) Estimate { return Estimate{Value: v, Lo: v, Hi: v} }

// Scale multiplies the estimate by a non-negative factor.
func (e Estimate) Scale(f float64) Estimate {
	return Estimate{Value: e.Value * f, Lo: e.Lo * f, Hi: e.Hi * f, NoInterval: e.NoInterval}
}

// NonNegative clamps the estimate at zero from below: a cost cannot be
// negative, whatever the fit's interval says.
func (e Estimate) NonNegative() Estimate {
	e.Value, e.Lo, e.Hi = math.Max(e.Value, 0), math.Max(e.Lo, 0), math.Max(e.Hi, 0)
	return e
}

// Plus adds o's value and bounds to e's.
func (e Estimate) Plus(o Estimate) Estimate {
	return Estimate{Value: e.Value + o.Value, Lo: e.Lo + o.Lo, Hi: e.Hi + o.Hi, NoInterval: e.NoInterval || o.NoInterval}
}

// Contains says whether v lies within [Lo, Hi].
func (e Estimate) Contains(v float64) bool { return v >= e.Lo && v <= e.Hi }

// tQuantile is the two-sided critical value of Student's t with dof degrees
// of freedom at Confidence.
func tQuantile(dof int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}
	return t.Quantile(1 - (1-Confidence)/2)
}

// nextValueEstimate is the mean of values with a Student's t prediction
// interval (n−1 degrees of freedom) for one more value of the same kind:
// mean ± t·s·√(1+1/n), not the mean's own ± t·s/√n. A MapLookup cost is
// checked against one more measurement (a median of as many loads as each
// calibration point), and the mean's interval held it too seldom:
// nftables' p99 at 50,000 in results/plan-holdout/native-x, 56.1 µs against
// 63.9 [58.3, …] from 4 points of 58.6-66.0. One value gives no interval.
func nextValueEstimate(values []float64) Estimate {
	n := float64(len(values))
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= n
	if len(values) < 2 {
		e := exact(mean)
		e.NoInterval = true
		return e
	}
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	half := tQuantile(len(values)-1) * math.Sqrt(ss/(n-1)*(1+1/n))
	return Estimate{Value: mean, Lo: mean - half, Hi: mean + half}
}

// Widen widens the interval to at least ±rel of the value (relative), for
// an uncertainty the fit's own interval leaves out.
func (e Estimate) Widen(rel float64) Estimate {
	e.Lo = math.Min(e.Lo, e.Value*(1-rel))
	e.Hi = math.Max(e.Hi, e.Value*(1+rel))
	e.NoInterval = false
	return e
}
