package stats

import (
	"math"
	"testing"
)

func TestCascade(t *testing.T) {
	// Three endpoints as kube-proxy writes them: probability 1/3, then 1/2,
	// then the rule without a statistic match.
	steps, err := Cascade([]uint64{340, 320, 340}, []float64{1.0 / 3, 0.5, 1})
	checkErrorContains(t, err, "")
	want := []struct {
		reached, packets uint64
		observed, p      float64
	}{
		// scipy.stats.binomtest(340, 1000, 1/3).pvalue → 0.6628427138339272.
		{1000, 340, 0.34, 0.6628427138339272},
		// scipy.stats.binomtest(320, 660, 0.5).pvalue → 0.45958432653346776.
		{660, 320, 320.0 / 660, 0.45958432653346776},
		// scipy.stats.binomtest(340, 340, 1.0).pvalue → 1.0.
		{340, 340, 1, 1},
	}
	for i, w := range want {
		s := steps[i]
		if s.Rule != i || s.Reached != w.reached || s.Packets != w.packets {
			t.Errorf("step %d: rule, reached, packets = %d, %d, %d; want %d, %d, %d",
				i, s.Rule, s.Reached, s.Packets, i, w.reached, w.packets)
		}
		checkApprox(t, "Observed", s.Observed, w.observed, 1e-15)
		checkApprox(t, "P", s.P, w.p, 1e-9)
		if !(s.ObservedLo <= s.Observed && s.Observed <= s.ObservedHi) {
			t.Errorf("step %d: interval [%v, %v] misses %v", i, s.ObservedLo, s.ObservedHi, s.Observed)
		}
	}
	// scipy.stats.binomtest(340,1000).proportion_ci(0.95, method='wilson').
	lo, hi, _ := WilsonInterval(340, 1000, 0.95)
	checkApprox(t, "ObservedLo", steps[0].ObservedLo, lo, 0)
	checkApprox(t, "ObservedHi", steps[0].ObservedHi, hi, 0)
}

func TestCascadeSkewed(t *testing.T) {
	// A first rule that takes 40% where 1/3 was configured.
	// scipy.stats.binomtest(400, 1000, 1/3).pvalue → 1.0784598869618728e-05.
	steps, err := Cascade([]uint64{400, 300, 300}, []float64{1.0 / 3, 0.5, 1})
	checkErrorContains(t, err, "")
	if !approx(steps[0].P/1.0784598869618728e-05, 1, 1e-8) {
		t.Errorf("P = %v, want 1.0784598869618728e-05", steps[0].P)
	}
	// Nothing reached: observed 0, interval [0, 1], p 1.
	steps, err = Cascade([]uint64{5, 0, 0}, []float64{0.5, 0.5, 1})
	checkErrorContains(t, err, "")
	if s := steps[1]; s.Reached != 0 || s.Observed != 0 || s.ObservedLo != 0 || s.ObservedHi != 1 || s.P != 1 {
		t.Errorf("unreached step = %+v", s)
	}
}

func TestCascadeErrors(t *testing.T) {
	tests := []struct {
		name    string
		packets []uint64
		probs   []float64
		err     string
	}{
		{"empty", nil, nil, "no rules"},
		{"length", []uint64{1, 2}, []float64{1}, "2 packet counters but 1"},
		{"range", []uint64{1, 2}, []float64{1.5, 1}, "not in [0, 1]"},
		{"NaN", []uint64{1, 2}, []float64{nan(), 1}, "not in [0, 1]"},
		{"last not 1", []uint64{1, 2}, []float64{0.5, 0.5}, "last rule has probability 0.5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Cascade(tc.packets, tc.probs)
			checkErrorContains(t, err, tc.err)
		})
	}
}

func TestBinomialTestAgainstScipy(t *testing.T) {
	tests := []struct {
		k, n uint64
		p    float64
		want float64
	}{
		// scipy.stats.binomtest(k, n, p).pvalue.
		{7, 20, 0.3, 0.6294979666766769},
		{2, 20, 0.5, 0.0004024505615234375},
		{18, 20, 0.5, 0.0004024505615234375},
		{500, 1000, 0.5, 1},
		{480, 1000, 0.5, 0.2174482932041409},
		{333000, 1000000, 1.0 / 3, 0.47993971411074926},
		{3, 10, 0.1, 0.0701908264},
		{0, 10, 0.1, 0.6125795109999999},
		{10, 10, 0.9, 0.612579511},
		{1, 10, 0.9, 9.09999999999998e-09},
		{0, 0, 0.5, 1},
		{0, 5, 0, 1},
		{1, 5, 0, 0},
	}
	for _, tc := range tests {
		got, err := BinomialTest(tc.k, tc.n, tc.p)
		checkErrorContains(t, err, "")
		if tc.want == 0 && got != 0 || tc.want != 0 && !approx(got/tc.want, 1, 1e-8) {
			t.Errorf("BinomialTest(%d, %d, %v) = %.15g, want %.15g", tc.k, tc.n, tc.p, got, tc.want)
		}
	}
	_, err := BinomialTest(3, 2, 0.5)
	checkErrorContains(t, err, "successes exceed trials")
	_, err = BinomialTest(1, 2, -0.1)
	checkErrorContains(t, err, "probability")
}

// bruteBinomialTest is the definition of the two-sided minimum-likelihood
// p-value: Σ pmf(j) over every j with pmf(j) <= pmf(k), with the pmf from
// C(n,j) p^j (1-p)^(n-j) by math.Lgamma, independent of gonum.
func bruteBinomialTest(k, n int, p float64) float64 {
	pmf := func(j int) float64 {
		lc, _ := math.Lgamma(float64(n + 1))
		lj, _ := math.Lgamma(float64(j + 1))
		lnj, _ := math.Lgamma(float64(n - j + 1))
		return math.Exp(lc - lj - lnj + float64(j)*math.Log(p) + float64(n-j)*math.Log1p(-p))
	}
	limit := pmf(k) * (1 + 1e-7)
	sum := 0.0
	for j := 0; j <= n; j++ {
		if q := pmf(j); q <= limit {
			sum += q
		}
	}
	return math.Min(1, sum)
}

func TestBinomialTestAgainstEnumeration(t *testing.T) {
	for _, n := range []int{1, 2, 7, 20, 51} {
		for _, p := range []float64{0.05, 0.2, 1.0 / 3, 0.5, 0.77} {
			for k := 0; k <= n; k++ {
				got, _ := BinomialTest(uint64(k), uint64(n), p)
				want := bruteBinomialTest(k, n, p)
				if !approx(got, want, 1e-9) {
					t.Errorf("BinomialTest(%d, %d, %v) = %.15g, enumeration %.15g", k, n, p, got, want)
				}
			}
		}
	}
}
