package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// BinomialTest returns the exact two-sided p-value of observing k successes
// in n trials when each succeeds with probability p. "Two-sided" sums the
// probabilities of every outcome that is no more likely than k (the
// "minimum likelihood" rule of R's binom.test and scipy.stats.binomtest),
// so the p-value is exact even for lopsided p. It runs in O(log n).
func BinomialTest(k, n uint64, p float64) (float64, error) {
	if k > n {
		return 0, fmt.Errorf("binomial test of %d successes in %d trials: successes exceed trials", k, n)
	}
	if !(p >= 0 && p <= 1) {
		return 0, fmt.Errorf("binomial test with probability %v: probability must be in [0, 1]", p)
	}
	if n == 0 {
		return 1, nil
	}
	return binomialTwoSided(float64(k), float64(n), p), nil
}

// relativeTolerance treats outcomes whose probability is within this factor
// of the observed one as equally likely, as R and scipy do, so that rounding
// in the log-pmf does not drop a symmetric outcome.
const relativeTolerance = 1 + 1e-7

func binomialTwoSided(k, n, p float64) float64 {
	if p == 0 || p == 1 {
		if k == n*p {
			return 1
		}
		return 0
	}
	dist := distuv.Binomial{N: n, P: p}
	mean := n * p
	limit := dist.Prob(k) * relativeTolerance
	var pval float64
	switch {
	case k == mean:
		return 1
	case k < mean:
		// Outcomes above the mean no more likely than k: the pmf falls
		// from ceil(mean) to n, so they form an upper tail [j, n].
		j := firstAtMost(math.Ceil(mean), n, limit, dist)
		pval = binomialAtMost(k, n, p) + binomialAtLeast(j, n, p)
	default:
		// The pmf rises from 0 to floor(mean): a lower tail [0, j].
		j := lastAtMost(0, math.Floor(mean), limit, dist)
		pval = binomialAtMost(j, n, p) + binomialAtLeast(k, n, p)
	}
	return math.Min(1, pval)
}

// firstAtMost returns the smallest x in [lo, hi] with pmf(x) <= limit, given
// that the pmf does not increase on [lo, hi]; hi+1 if there is none.
func firstAtMost(lo, hi, limit float64, dist distuv.Binomial) float64 {
	for lo <= hi {
		mid := math.Floor((lo + hi) / 2)
		if dist.Prob(mid) <= limit {
			hi = mid - 1
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// lastAtMost returns the largest x in [lo, hi] with pmf(x) <= limit, given
// that the pmf does not decrease on [lo, hi]; lo-1 if there is none.
func lastAtMost(lo, hi, limit float64, dist distuv.Binomial) float64 {
	for lo <= hi {
		mid := math.Floor((lo + hi) / 2)
		if dist.Prob(mid) <= limit {
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return hi
}

// binomialAtMost is P(X <= x) for X ~ Binomial(n, p).
func binomialAtMost(x, n, p float64) float64 {
	switch {
	case x < 0:
		return 0
	case x >= n:
		return 1
	}
	return mathext.RegIncBeta(n-x, x+1, 1-p)
}

// binomialAtLeast is P(X >= x) for X ~ Binomial(n, p), computed directly
// rather than as 1 - CDF so that tiny tails keep their precision.
func binomialAtLeast(x, n, p float64) float64 {
	switch {
	case x <= 0:
		return 1
	case x > n:
		return 0
	}
	return mathext.RegIncBeta(x, n-x+1, p)
}
