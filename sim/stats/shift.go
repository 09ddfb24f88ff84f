package stats

import (
	"math"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
)

// Shift is how much new differs from base, as a percentage of base: the
// Hodges-Lehmann estimate of the shift between the two samples with its
// distribution-free confidence interval (Moses' method, the interval that
// goes with the Mann-Whitney U test). When every value is positive the
// shift is taken between the logarithms, so it is a ratio (new/base − 1);
// otherwise it is a difference relative to base's median.
type Shift struct {
	// EstPct, LoPct and HiPct are the estimate and the interval's bounds in
	// percent (+10 means new is 10% higher).
	EstPct, LoPct, HiPct float64
	// Confidence is the interval's level (at least the one asked for).
	Confidence float64
	// Bounded is false when the samples are too small for an interval at
	// that level (then LoPct and HiPct are ∓Inf).
	Bounded bool
	// N1 and N2 are the sample sizes.
	N1, N2 int
}

// HalfWidthPct is half the interval's width in percent: roughly the
// smallest change these samples could tell from none at the interval's
// level. It is +Inf when the interval is unbounded.
func (s Shift) HalfWidthPct() float64 {
	if !s.Bounded {
		return math.Inf(1)
	}
	return (s.HiPct - s.LoPct) / 2
}

// exactUMax bounds n1·n2 for the exact U distribution; above it the normal
// approximation is used.
const exactUMax = 2500

// ShiftInterval estimates the shift from base to new with its interval at
// level confidence (e.g. 0.95). Non-finite values are dropped. Both samples
// need at least one value; otherwise the zero Shift is returned.
func ShiftInterval(base, new []float64, confidence float64) Shift {
	b, _ := dropNonFinite(base)
	n, _ := dropNonFinite(new)
	if len(b) == 0 || len(n) == 0 {
		return Shift{}
	}
	logScale := allPositive(b) && allPositive(n)
	toPct := relativeScale(b, logScale)
	d := pairwiseDifferences(b, n, logScale)
	s := Shift{EstPct: toPct(Median(d)), Confidence: confidence, N1: len(b), N2: len(n)}
	k, level := mosesRank(len(b), len(n), confidence)
	s.bound(d, k, level, toPct)
	return s
}

// bound sets the interval to the k-th smallest and the k-th largest of the
// sorted estimates, converted to percent by toPct, at level; k < 1 leaves
// the interval unbounded (∓Inf).
func (s *Shift) bound(sorted []float64, k int, level float64, toPct func(float64) float64) {
	if k < 1 {
		s.LoPct, s.HiPct = math.Inf(-1), math.Inf(1)
		return
	}
	s.LoPct, s.HiPct = toPct(sorted[k-1]), toPct(sorted[len(sorted)-k])
	s.Confidence, s.Bounded = level, true
}

// relativeScale converts a shift on the samples' scale into percent of
// base: a log ratio, or a difference over base's median.
func relativeScale(base []float64, logScale bool) func(float64) float64 {
	if logScale {
		return func(d float64) float64 { return (math.Exp(d) - 1) * 100 }
	}
	m := math.Abs(Median(base))
	if m == 0 {
		m = 1
	}
	return func(d float64) float64 { return d / m * 100 }
}

// pairwiseDifferences returns every new−base difference (of logarithms
// when logScale), sorted.
func pairwiseDifferences(base, new []float64, logScale bool) []float64 {
	d := make([]float64, 0, len(base)*len(new))
	for _, x := range base {
		for _, y := range new {
			if logScale {
				d = append(d, math.Log(y)-math.Log(x))
			} else {
				d = append(d, y-x)
			}
		}
	}
	slices.Sort(d)
	return d
}

// mosesRank returns the rank k of the interval's lower bound among the
// sorted differences (the upper bound is the k-th largest) and the
// interval's actual level: the largest k with P(U ≤ k−1) ≤ (1−confidence)/2
// under the null distribution of the Mann-Whitney U statistic. k is 0 when
// no interval at that level exists.
func mosesRank(n1, n2 int, confidence float64) (int, float64) {
	tail := (1 - confidence) / 2
	if n1*n2 > exactUMax {
		mean := float64(n1*n2) / 2
		sd := math.Sqrt(float64(n1*n2*(n1+n2+1)) / 12)
		z := moremath.NormalDist{Mu: 0, Sigma: 1}.InvCDF(1 - tail)
		k := int(math.Floor(mean - z*sd))
		if k < 1 {
			return 0, 0
		}
		return k, confidence
	}
	u := moremath.UDist{N1: n1, N2: n2}
	k := 0
	for k < n1*n2/2 && u.CDF(float64(k)) <= tail {
		k++
	}
	if k == 0 {
		return 0, 0
	}
	return k, 1 - 2*u.CDF(float64(k-1))
}

func allPositive(v []float64) bool {
	for _, x := range v {
		if !(x > 0) {
			return false
		}
	}
	return true
}
