package stats

import (
	"math"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// PairedShift is how much new differs from base when the two were
// measured in pairs (repetition i of each side side by side, as svclab ab
// interleaves them): the Hodges-Lehmann estimate of the pairs' median
// change, the median of the Walsh averages of the per-pair differences, with
// the distribution-free interval and the p-value of the Wilcoxon
// signed-rank test. When every value is positive the differences are of
// logarithms, so the shift is a ratio new/base − 1; otherwise they are
// differences relative to base's median. A machine that drifts moves both
// values of a pair, so the drift cancels in the pair's ratio.
type PairedShift struct {
	Shift
	// P is the two-sided p-value of the signed-rank test of no change.
	P float64
}

// signedRankExactMax bounds the pair count for the exact signed-rank
// distribution; above it the normal approximation is used.
const signedRankExactMax = 200

// PairedInterval estimates the paired shift from base to new at level
// confidence (e.g. 0.95). base[i] and new[i] are one pair; pairs with a
// non-finite value are dropped, and so are the extra values of the longer
// side. N1 and N2 of the result are both the pair count.
func PairedInterval(base, new []float64, confidence float64) PairedShift {
	b, n := finitePairs(base, new)
	if len(b) == 0 {
		return PairedShift{P: 1}
	}
	logScale := allPositive(b) && allPositive(n)
	toPct := relativeScale(b, logScale)
	d := make([]float64, len(b))
	for i := range b {
		if logScale {
			d[i] = math.Log(n[i]) - math.Log(b[i])
		} else {
			d[i] = n[i] - b[i]
		}
	}
	w := walshAverages(d)
	s := PairedShift{Shift: Shift{EstPct: toPct(Median(w)), Confidence: confidence, N1: len(d), N2: len(d)}, P: SignedRankP(d)}
	k, level := signedRankBound(len(d), confidence)
	s.bound(w, k, level, toPct)
	return s
}

// finitePairs keeps the pairs whose two values are finite.
func finitePairs(base, new []float64) (b, n []float64) {
	for i := range min(len(base), len(new)) {
		x, y := base[i], new[i]
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		b, n = append(b, x), append(n, y)
	}
	return b, n
}

// walshAverages returns every (d[i]+d[j])/2 with i ≤ j, sorted.
func walshAverages(d []float64) []float64 {
	w := make([]float64, 0, len(d)*(len(d)+1)/2)
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return w
}

// signedRankBound returns the rank k of the interval's lower bound among
// the sorted Walsh averages (the upper bound is the k-th largest) and the
// interval's actual level: the largest k with P(W ≤ k−1) ≤ (1−confidence)/2
// under the null distribution of the signed-rank statistic W of n pairs.
// k is 0 when no interval at that level exists (fewer than 6 pairs at 95%).
func signedRankBound(n int, confidence float64) (int, float64) {
	tail := (1 - confidence) / 2
	if n > signedRankExactMax {
		mean, sd := signedRankMoments(n)
		z := moremath.NormalDist{Mu: 0, Sigma: 1}.InvCDF(1 - tail)
		k := int(math.Floor(mean - z*sd))
		if k < 1 {
			return 0, 0
		}
		return k, confidence
	}
	cdf := signedRankCDF(n)
	k := 0
	for k < len(cdf)/2 && cdf[k] <= tail {
		k++
	}
	if k == 0 {
		return 0, 0
	}
	return k, 1 - 2*cdf[k-1]
}

// signedRankMoments are the mean and standard deviation of W under the null.
func signedRankMoments(n int) (mean, sd float64) {
	f := float64(n)
	return f * (f + 1) / 4, math.Sqrt(f * (f + 1) * (2*f + 1) / 24)
}

// signedRankCDF returns P(W ≤ w) for w = 0 … n(n+1)/2: W is the sum of a
// random subset of the ranks 1…n, each in it with probability ½.
func signedRankCDF(n int) []float64 {
	top := n * (n + 1) / 2
	p := make([]float64, top+1)
	p[0] = 1
	for r := 1; r <= n; r++ {
		for w := r * (r + 1) / 2; w >= r; w-- {
			p[w] = (p[w] + p[w-r]) / 2
		}
		for w := r - 1; w >= 0; w-- {
			p[w] /= 2
		}
	}
	for w := 1; w <= top; w++ {
		p[w] += p[w-1]
	}
	return p
}

// SignedRankP is the two-sided p-value of the Wilcoxon signed-rank test
// that the differences d are centred on zero. Zero differences are
// dropped; tied magnitudes get their average rank. It is exact (up to
// ties) for up to signedRankExactMax differences, a normal approximation
// with continuity correction above. No differences give 1.
func SignedRankP(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	wPlus := positiveRankSum(nz)
	mean, sd := signedRankMoments(n)
	if n > signedRankExactMax {
		z := (math.Abs(wPlus-mean) - 0.5) / sd
		return math.Min(1, 2*(1-moremath.NormalDist{Mu: 0, Sigma: 1}.CDF(math.Max(z, 0))))
	}
	cdf := signedRankCDF(n)
	lower := math.Min(wPlus, 2*mean-wPlus) // the smaller tail's statistic
	return math.Min(1, 2*cdf[int(math.Floor(lower+1e-9))])
}

// positiveRankSum is W+: the sum of the ranks of |d| (ties averaged) of
// the positive differences.
func positiveRankSum(d []float64) float64 {
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpAbs(d[a], d[b]) })
	var w float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && math.Abs(d[idx[j]]) == math.Abs(d[idx[i]]) {
			j++
		}
		rank := float64(i+j+1) / 2 // average of ranks i+1 … j
		for _, k := range idx[i:j] {
			if d[k] > 0 {
				w += rank
			}
		}
		i = j
	}
	return w
}

func cmpAbs(a, b float64) int {
	switch x, y := math.Abs(a), math.Abs(b); {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
