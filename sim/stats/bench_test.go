package stats

import (
	"math"
	"slices"
	"sort"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name       string
		values     []float64
		center     float64
		lo, hi     float64
		confidence float64
		unbounded  bool
		warning    string
	}{
		// Median CI from order statistics: [X(l), X(u)] covers the median
		// with probability P(l <= B < u), B ~ Binomial(n, 1/2).
		// n=10: (2, 9) gives 1 - 2·(1+10)/1024 = 0.978515625 >= 0.95,
		// while (3, 8) gives 1 - 2·(1+10+45)/1024 = 0.890625 < 0.95.
		{"ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 2, 9, 0.978515625, false, ""},
		// n=6: (1, 6) gives 1 - 2/64 = 0.96875.
		{"six", []float64{6, 1, 5, 2, 4, 3}, 3.5, 1, 6, 0.96875, false, ""},
		// n=5: (1, 5) gives only 1 - 2/32 = 0.9375, so no finite interval.
		{"five", []float64{1, 2, 3, 4, 5}, 3, 0, 0, 0, true, "need >= 6 samples for confidence interval at level 0.95"},
		{"NaN dropped", []float64{1, 2, math.NaN(), 3, 4, 5, 6}, 3.5, 1, 6, 0.96875, false, "dropped 1 non-finite values"},
		{"empty", nil, 0, 0, 0, 0, true, "no samples"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.values)
			s := Summarize(in, 0.95)
			if !slices.EqualFunc(in, tc.values, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
				t.Errorf("Summarize modified its input: %v", in)
			}
			checkApprox(t, "Center", s.Center, tc.center, 0)
			checkApprox(t, "Lo", s.Lo, tc.lo, 0)
			checkApprox(t, "Hi", s.Hi, tc.hi, 0)
			if s.Unbounded != tc.unbounded {
				t.Errorf("Unbounded = %v, want %v", s.Unbounded, tc.unbounded)
			}
			if !tc.unbounded {
				checkApprox(t, "Confidence", s.Confidence, tc.confidence, 1e-12)
			}
			if tc.warning != "" && !hasWarning(s.Warnings, tc.warning) {
				t.Errorf("Warnings = %q, want %q", s.Warnings, tc.warning)
			}
			if tc.warning == "" && len(s.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", s.Warnings)
			}
		})
	}
}

func TestCompareAgainstScipy(t *testing.T) {
	tests := []struct {
		name        string
		base, new   []float64
		p, deltaPct float64
		significant bool
		warning     string
	}{
		// scipy.stats.mannwhitneyu(a, b, alternative='two-sided', method='exact').
		// → 0.02857142857142857 (= 2/C(8,4)); medians 2.5 → 6.5 is +160%.
		{"separated four", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0.02857142857142857, 160, true, ""},
		// → 0.1 (= 2/C(6,3)): three samples can never reach 0.05; 2 → 5 is +150%.
		{"separated three", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1, 150, false,
			"need >= 4 samples to detect a difference at alpha level 0.05"},
		// → 0.30952380952380953; medians 3.5 → 6.7.
		{"overlapping five", []float64{1.1, 2.3, 3.5, 4.2, 5.9}, []float64{2.0, 3.1, 6.7, 7.3, 8.8},
			0.30952380952380953, (6.7/3.5 - 1) * 100, false, ""},
		// → 0.013986013986013986; medians 10.65 → 11.8.
		{"latencies", []float64{10.2, 11.5, 9.8, 10.9, 10.4, 11.1}, []float64{10.6, 12.0, 11.8, 12.4, 11.3, 12.9, 11.7},
			0.013986013986013986, (11.8/10.65 - 1) * 100, true, ""},
		{"all equal", []float64{5, 5, 5}, []float64{5, 5, 5}, 1, 0, false, "all samples are equal"},
		{"empty", nil, []float64{1, 2}, 1, 0, false, "sample is too small"},
		{"zero base", []float64{0, 0, 0, 0}, []float64{1, 2, 3, 4}, 0.02857142857142857, 0, true, "base median is 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.base, tc.new, 0.05)
			checkApprox(t, "P", c.P, tc.p, 1e-12)
			checkApprox(t, "DeltaPct", c.DeltaPct, tc.deltaPct, 1e-9)
			if c.Significant != tc.significant {
				t.Errorf("Significant = %v, want %v", c.Significant, tc.significant)
			}
			if tc.warning != "" && !hasWarning(c.Warnings, tc.warning) {
				t.Errorf("Warnings = %q, want %q", c.Warnings, tc.warning)
			}
			if tc.warning == "" && len(c.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", c.Warnings)
			}
			if c.N1 != len(tc.base) || c.N2 != len(tc.new) || c.Alpha != 0.05 {
				t.Errorf("N1, N2, Alpha = %d, %d, %v", c.N1, c.N2, c.Alpha)
			}
		})
	}
}

// bruteMannWhitney is the exact two-sided Mann-Whitney p-value by
// enumeration: pool the values, give ties their average rank, and for every
// way of choosing len(a) of the pooled values as the first sample compute
// U = R1 - n1(n1+1)/2. With Usmall = min(U, n1·n2-U) observed, p is
// 2·P(U <= Usmall), or 1 when U = n1·n2/2. This is the same conditional
// (tie-aware) distribution Klotz (1966) tabulates.
func bruteMannWhitney(a, b []float64) float64 {
	pooled := append(slices.Clone(a), b...)
	ranks := midranks(pooled)
	n1, n := len(a), len(pooled)
	uOf := func(members []int) float64 {
		r := 0.0
		for _, i := range members {
			r += ranks[i]
		}
		return r - float64(n1*(n1+1))/2
	}
	first := make([]int, n1)
	for i := range first {
		first[i] = i
	}
	u := uOf(first)
	usmall := math.Min(u, float64(n1*(n-n1))-u)
	if 2*u == float64(n1*(n-n1)) {
		return 1
	}
	var atMost, total float64
	forEachSubset(n, n1, func(members []int) {
		total++
		if uOf(members) <= usmall+1e-9 {
			atMost++
		}
	})
	return 2 * atMost / total
}

func midranks(values []float64) []float64 {
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return values[order[i]] < values[order[j]] })
	ranks := make([]float64, len(values))
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && values[order[j]] == values[order[i]] {
			j++
		}
		for k := i; k < j; k++ {
			ranks[order[k]] = float64(i+j+1) / 2
		}
		i = j
	}
	return ranks
}

// forEachSubset calls fn with every k-subset of 0..n-1.
func forEachSubset(n, k int, fn func([]int)) {
	set := make([]int, 0, k)
	var walk func(start int)
	walk = func(start int) {
		if len(set) == k {
			fn(set)
			return
		}
		for i := start; i <= n-(k-len(set)); i++ {
			set = append(set, i)
			walk(i + 1)
			set = set[:len(set)-1]
		}
	}
	walk(0)
}

func TestCompareAgainstEnumeration(t *testing.T) {
	tests := []struct {
		name      string
		base, new []float64
	}{
		{"no ties", []float64{1.1, 2.3, 3.5, 4.2, 5.9}, []float64{2.0, 3.1, 6.7, 7.3, 8.8}},
		{"ties", []float64{3, 1, 4, 1, 5}, []float64{9, 2, 6, 5, 3}},
		{"ties across", []float64{10, 10, 11, 12, 12, 13}, []float64{12, 13, 13, 14, 10, 15}},
		{"uneven", []float64{7, 3, 9}, []float64{1, 2, 4, 5, 6, 8, 10}},
		{"identical medians", []float64{1, 4, 5, 8}, []float64{2, 3, 6, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.base, tc.new, 0.05)
			checkApprox(t, "P", c.P, bruteMannWhitney(tc.base, tc.new), 1e-9)
		})
	}
}

func TestCompareBadAlpha(t *testing.T) {
	c := Compare([]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0)
	if c.Alpha != DefaultAlpha || !hasWarning(c.Warnings, "alpha 0 is not in (0, 1)") {
		t.Errorf("Compare with alpha 0 = %+v", c)
	}
}

func TestMedianInterval(t *testing.T) {
	tests := []struct {
		name           string
		values         []float64
		center, lo, hi float64
		ok             bool
	}{
		// 9 values: the 2nd and 8th order statistics (96.1%).
		{"nine loads", []float64{416, 235, 294, 302, 310, 317, 379, 400, 412}, 317, 294, 412, true},
		{"six loads, the fewest at 95%", []float64{6, 1, 5, 2, 4, 3}, 3.5, 1, 6, true},
		{"three loads", []float64{1, 2, 3}, 2, 0, 0, false},
		{"non-finite values dropped", []float64{math.NaN(), 1, 2, 3}, 2, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			center, lo, hi, ok := MedianInterval(tt.values, 0.95)
			if center != tt.center || lo != tt.lo || hi != tt.hi || ok != tt.ok {
				t.Errorf("MedianInterval = %v [%v, %v] %v, want %v [%v, %v] %v", center, lo, hi, ok, tt.center, tt.lo, tt.hi, tt.ok)
			}
		})
	}
	if _, _, _, ok := MedianInterval(nil, 0.95); ok {
		t.Error("no values: ok, want not")
	}
}
