package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestShiftIntervalTable(t *testing.T) {
	base := []float64{100, 104, 96, 110, 92, 101}
	scaled := func(f float64) []float64 {
		out := make([]float64, len(base))
		for i, v := range base {
			out[i] = v * f
		}
		return out
	}
	tests := []struct {
		name          string
		base, new     []float64
		wantEst       float64
		wantBounded   bool
		coversZero    bool
		coversWantEst bool
	}{
		{"identical samples", base, base, 0, true, true, true},
		{"every value +30%", base, scaled(1.3), 30, true, false, true},
		{"every value -20%", base, scaled(0.8), -20, true, false, true},
		{"too few for 95%", []float64{1, 2}, []float64{3, 4}, 0, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ShiftInterval(tt.base, tt.new, 0.95)
			if s.Bounded != tt.wantBounded {
				t.Fatalf("Bounded = %v, want %v (%+v)", s.Bounded, tt.wantBounded, s)
			}
			if tt.wantBounded && math.Abs(s.EstPct-tt.wantEst) > 1e-9 {
				t.Errorf("EstPct = %v, want %v", s.EstPct, tt.wantEst)
			}
			if got := s.LoPct <= 0 && 0 <= s.HiPct; got != tt.coversZero {
				t.Errorf("interval [%v, %v] covers 0 = %v, want %v", s.LoPct, s.HiPct, got, tt.coversZero)
			}
			if tt.wantBounded && s.Confidence < 0.95 {
				t.Errorf("Confidence = %v, want ≥ 0.95", s.Confidence)
			}
		})
	}
}

// TestShiftIntervalCoverage draws samples with a known ratio and checks
// that the 95% interval covers it about 95% of the time (exact method for
// 6+6, the normal approximation for 60+60).
func TestShiftIntervalCoverage(t *testing.T) {
	for _, n := range []int{6, 60} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		const trials, ratio = 800, 1.25
		covered := 0
		for range trials {
			b, nw := make([]float64, n), make([]float64, n)
			for i := range n {
				b[i] = 100 * math.Exp(0.3*rng.NormFloat64())
				nw[i] = ratio * 100 * math.Exp(0.3*rng.NormFloat64())
			}
			s := ShiftInterval(b, nw, 0.95)
			if s.LoPct <= (ratio-1)*100 && (ratio-1)*100 <= s.HiPct {
				covered++
			}
		}
		if rate := float64(covered) / trials; rate < 0.92 || rate > 0.985 {
			t.Errorf("n=%d: coverage %.3f, want about 0.95", n, rate)
		}
	}
}

func TestShiftIntervalNonPositiveValues(t *testing.T) {
	s := ShiftInterval([]float64{0, 1, 2, 3, 4, 5}, []float64{10, 11, 12, 13, 14, 15}, 0.95)
	if !s.Bounded || s.LoPct <= 0 {
		t.Fatalf("a clear increase with a zero value: %+v", s)
	}
}
