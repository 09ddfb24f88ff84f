package stats

import (
	"encoding/json"
	"testing"
)

func TestFairnessChiSquare(t *testing.T) {
	tests := []struct {
		name     string
		counts   []uint64
		expected []float64
		chi      float64
		dof      int
		p        float64
	}{
		// scipy.stats.chisquare([48,52]) → 0.16, p=0.6891565167793516.
		// Also erfc(sqrt(0.16/2)) for 1 dof.
		{"fair two", []uint64{48, 52}, nil, 0.16, 1, 0.6891565167793516},
		// scipy.stats.chisquare([70,30]) → 16.0, p=6.334248366623988e-05.
		{"unfair two", []uint64{70, 30}, nil, 16, 1, 6.334248366623988e-05},
		// scipy.stats.chisquare([1000,1000,1000]) → 0.0, p=1.0.
		{"perfect three", []uint64{1000, 1000, 1000}, nil, 0, 2, 1},
		// scipy.stats.chisquare([2500,2600,2450,2450]) → 6.0, p=0.11161022509471268.
		{"fair four", []uint64{2500, 2600, 2450, 2450}, nil, 6, 3, 0.11161022509471268},
		// scipy.stats.chisquare([520,240,240], [500,250,250]) → 1.6, p=0.4493289641172217.
		{"weighted", []uint64{520, 240, 240}, []float64{0.5, 0.25, 0.25}, 1.6, 2, 0.4493289641172217},
		// scipy.stats.chisquare([600,200,200]) → 320.0, p=3.257488532207515e-70.
		{"very unfair", []uint64{600, 200, 200}, nil, 320, 2, 3.257488532207515e-70},
		// One endpoint: nothing to test.
		{"single", []uint64{42}, nil, 0, 0, 1},
		// An endpoint expected to get nothing and getting nothing is left
		// out: the test is then [48,52] against [50,50].
		{"zero expected", []uint64{48, 0, 52}, []float64{0.5, 0, 0.5}, 0.16, 1, 0.6891565167793516},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Fairness(tc.counts, tc.expected)
			checkErrorContains(t, err, "")
			checkApprox(t, "ChiSquare", r.ChiSquare, tc.chi, 1e-12)
			if r.DegreesOfFreedom != tc.dof {
				t.Errorf("DegreesOfFreedom = %d, want %d", r.DegreesOfFreedom, tc.dof)
			}
			// Relative tolerance: p spans 70 orders of magnitude.
			if tc.p != 0 && !approx(r.P/tc.p, 1, 1e-9) {
				t.Errorf("P = %.12g, want %.12g", r.P, tc.p)
			}
		})
	}
}

func TestFairnessIndices(t *testing.T) {
	tests := []struct {
		name   string
		counts []uint64
		jain   float64
		ratio  float64
		zeros  int
	}{
		// Jain (Σx)²/(nΣx²): [1,1] → 4/(2·2) = 1.
		{"equal", []uint64{1, 1}, 1, 1, 0},
		// [1,0] → 1/(2·1) = 0.5; max/min is infinite, reported as 0.
		{"one starved", []uint64{1, 0}, 0.5, 0, 1},
		// [3,1] → 16/(2·10) = 0.8; ratio 3.
		{"three to one", []uint64{3, 1}, 0.8, 3, 0},
		// [5,0,0,0] → 25/(4·25) = 1/n.
		{"one takes all", []uint64{5, 0, 0, 0}, 0.25, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Fairness(tc.counts, nil)
			checkErrorContains(t, err, "")
			checkApprox(t, "Jain", r.Jain, tc.jain, 1e-15)
			checkApprox(t, "MaxMinRatio", r.MaxMinRatio, tc.ratio, 1e-15)
			if r.ZeroEndpoints != tc.zeros {
				t.Errorf("ZeroEndpoints = %d, want %d", r.ZeroEndpoints, tc.zeros)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("result does not encode as JSON: %v", err)
			}
		})
	}
}

func TestFairnessWeightedIndices(t *testing.T) {
	// Loads x = count/expected: [520/0.5, 240/0.25, 240/0.25] = [1040, 960, 960].
	// Jain = 2960²/(3·(1040²+960²+960²)) = 8761600/8774400; max/min = 1040/960.
	// An endpoint expected to get nothing is not an endpoint that starves.
	r, err := Fairness([]uint64{520, 240, 240, 0}, []float64{0.5, 0.25, 0.25, 0})
	checkErrorContains(t, err, "")
	checkApprox(t, "Jain", r.Jain, 8761600.0/8774400, 1e-15)
	checkApprox(t, "MaxMinRatio", r.MaxMinRatio, 1040.0/960, 1e-15)
	if r.ZeroEndpoints != 0 {
		t.Errorf("ZeroEndpoints = %d, want 0", r.ZeroEndpoints)
	}
}

func TestFairnessShares(t *testing.T) {
	// scipy.stats.binomtest(48,100).proportion_ci(0.95, method='wilson')
	// → (0.384645517580519, 0.5768342223477604).
	r, err := Fairness([]uint64{48, 52}, nil)
	checkErrorContains(t, err, "")
	e := r.Endpoints[0]
	checkApprox(t, "Share", e.Share, 0.48, 1e-15)
	checkApprox(t, "ShareLo", e.ShareLo, 0.384645517580519, 1e-12)
	checkApprox(t, "ShareHi", e.ShareHi, 0.5768342223477604, 1e-12)
	checkApprox(t, "Expected", e.Expected, 0.5, 0)
	if r.Total != 100 || e.Count != 48 {
		t.Errorf("Total, Count = %d, %d; want 100, 48", r.Total, e.Count)
	}
}

func TestFairnessWarnsOnSmallExpectedCounts(t *testing.T) {
	// scipy.stats.chisquare([3,1]) → 1.0, p=0.31731050786291115, but the
	// expected counts (2, 2) are below 5.
	r, err := Fairness([]uint64{3, 1}, nil)
	checkErrorContains(t, err, "")
	checkApprox(t, "P", r.P, 0.31731050786291115, 1e-12)
	if !hasWarning(r.Warnings, "approximate") {
		t.Errorf("Warnings = %q, want a warning about small expected counts", r.Warnings)
	}
}

func TestFairnessErrors(t *testing.T) {
	tests := []struct {
		name     string
		counts   []uint64
		expected []float64
		err      string
	}{
		{"empty", nil, nil, "no endpoints"},
		{"zero total", []uint64{0, 0}, nil, "total count is zero"},
		{"length", []uint64{1, 2}, []float64{1}, "2 counts but 1 expected"},
		{"negative", []uint64{1, 2}, []float64{-0.5, 1.5}, "not in [0, 1]"},
		{"NaN", []uint64{1, 2}, []float64{nan(), 0.5}, "not in [0, 1]"},
		{"sum", []uint64{1, 2}, []float64{0.5, 0.4}, "sum to 0.9"},
		{"count where none expected", []uint64{1, 2}, []float64{0, 1}, "expected to get nothing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fairness(tc.counts, tc.expected)
			checkErrorContains(t, err, tc.err)
		})
	}
}

func TestWilsonInterval(t *testing.T) {
	tests := []struct {
		k, n   uint64
		lo, hi float64
	}{
		// scipy.stats.binomtest(k,n).proportion_ci(0.95, method='wilson').
		{5000, 10000, 0.49020206181540477, 0.5097979381845952},
		{0, 10, 0, 0.27753279986288926},
		{10, 10, 0.7224672001371109, 1},
		{1, 3, 0.06149194472039626, 0.7923403991979523},
		// No trials: no information.
		{0, 0, 0, 1},
	}
	for _, tc := range tests {
		lo, hi, err := WilsonInterval(tc.k, tc.n, 0.95)
		checkErrorContains(t, err, "")
		checkApprox(t, "lo", lo, tc.lo, 1e-12)
		checkApprox(t, "hi", hi, tc.hi, 1e-12)
	}
	_, _, err := WilsonInterval(3, 2, 0.95)
	checkErrorContains(t, err, "successes exceed trials")
	_, _, err = WilsonInterval(1, 2, 1)
	checkErrorContains(t, err, "confidence")
}
