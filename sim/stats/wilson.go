package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultConfidence is the confidence level of the intervals that Fairness,
// Cascade and LinearFit report.
const DefaultConfidence = 0.95

// zScore returns the two-sided standard normal critical value for a
// confidence level, e.g. 1.959964 for 0.95.
func zScore(confidence float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-confidence)/2)
}

// WilsonInterval returns the Wilson score interval for a binomial proportion
// of successes out of trials at the given confidence level (e.g. 0.95).
// Unlike the textbook p ± z·sqrt(p(1-p)/n) interval it stays inside [0, 1]
// and is honest for proportions near 0 or 1 and for small trial counts.
// With zero trials it returns the uninformative interval [0, 1].
func WilsonInterval(successes, trials uint64, confidence float64) (lo, hi float64, err error) {
	if successes > trials {
		return 0, 0, fmt.Errorf("wilson interval of %d successes in %d trials: successes exceed trials", successes, trials)
	}
	if !(confidence > 0 && confidence < 1) {
		return 0, 0, fmt.Errorf("wilson interval at confidence %v: confidence must be in (0, 1)", confidence)
	}
	if trials == 0 {
		return 0, 1, nil
	}
	lo, hi = wilson(float64(successes), float64(trials), zScore(confidence))
	return lo, hi, nil
}

// wilson computes the Wilson score interval for k successes in n > 0 trials
// with critical value z:
//
//	centre = (p + z²/2n) / (1 + z²/n)
//	half   = z/(1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)
func wilson(k, n, z float64) (lo, hi float64) {
	p := k / n
	z2 := z * z
	denom := 1 + z2/n
	centre := (p + z2/(2*n)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	lo, hi = math.Max(0, centre-half), math.Min(1, centre+half)
	// Analytically lo = 0 at k = 0 and hi = 1 at k = n; do not let
	// rounding leave 1e-19 there.
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}
