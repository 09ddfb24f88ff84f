package stats

import (
	"math"

	moremath "github.com/aclements/go-moremath/stats"
)

// PairSpread is the robust standard deviation of the pairs' log-ratios
// log(new/base): 1.4826 times their median absolute deviation, which a few
// pairs disturbed by the machine do not inflate (the signed-rank interval
// is as robust). NaN for fewer than 2 pairs or a non-positive value.
func PairSpread(base, new []float64) float64 {
	b, n := finitePairs(base, new)
	if len(b) < 2 || !allPositive(b) || !allPositive(n) {
		return math.NaN()
	}
	d := make([]float64, len(b))
	for i := range b {
		d[i] = math.Log(n[i]) - math.Log(b[i])
	}
	m := Median(d)
	dev := make([]float64, len(d))
	for i, x := range d {
		dev[i] = math.Abs(x - m)
	}
	return 1.4826 * Median(dev)
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
