package stats

import (
	"math"

	moremath "github.com/aclements/go-moremath/stats"
)

// Spread is the standard deviation of the pairs' log-ratios log(new/base)
// that the shift's interval implies: its half-width on the log scale times
// √(3n/π) over the normal quantile of its level (the Hodges-Lehmann
// estimate's standard error is σ/√(3n/π) for normal data). Read back from
// the signed-rank interval, it carries what that interval saw, heavy tails
// included, which a standard deviation of the pairs would over- or
// understate. NaN for an unbounded interval or ratios that are not
// log-scale (a bound at or below −100%).
func (s PairedShift) Spread() float64 {
	if !s.Bounded || s.LoPct <= -100 || s.Confidence <= 0 || s.Confidence >= 1 {
		return math.NaN()
	}
	half := (math.Log1p(s.HiPct/100) - math.Log1p(s.LoPct/100)) / 2
	z := moremath.NormalDist{Mu: 0, Sigma: 1}.InvCDF(1 - (1-s.Confidence)/2)
	return half * math.Sqrt(3*float64(s.N1)/math.Pi) / z
}

// minSignificantPairs is the fewest pairs whose exact two-sided
// signed-rank p-value can reach alpha: 2/2ⁿ ≤ alpha.
func minSignificantPairs(alpha float64) int {
	return int(math.Ceil(math.Log2(2 / alpha)))
}

// PairsToDetect is about how many pairs a paired comparison needs to call
// a real change of changePct a regression beyond thresholdPct with
// probability power, when the pairs' log-ratios spread with standard
// deviation spread (PairSpread): the Hodges-Lehmann estimate (standard
// error spread/√(3n/π), its efficiency against the mean of normal data)
// must exceed the threshold, and the signed-rank test must reject no
// change at level alpha (two-sided). The normal approximation, and never
// fewer pairs than an exact p-value of alpha needs. -1 when the change is
// not above the threshold or the spread is unknown.
func PairsToDetect(spread, changePct, thresholdPct, alpha, power float64) int {
	delta, tau := math.Log1p(changePct/100), math.Log1p(thresholdPct/100)
	if math.IsNaN(spread) || delta <= tau || alpha <= 0 || power <= 0 || power >= 1 {
		return -1
	}
	z := moremath.NormalDist{Mu: 0, Sigma: 1}
	zPower, zAlpha := z.InvCDF(power), z.InvCDF(1-alpha/2)
	beyond := math.Pow(zPower*spread/(delta-tau), 2)
	significant := math.Pow((zAlpha+zPower)*spread/delta, 2)
	n := math.Ceil(math.Max(beyond, significant) * math.Pi / 3)
	return max(int(n), minSignificantPairs(alpha))
}
