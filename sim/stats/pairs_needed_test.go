package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base, new := make([]float64, 400), make([]float64, 400)
	for i := range base {
		drift := math.Exp(rng.NormFloat64())
		base[i], new[i] = 100*drift, 110*drift*math.Exp(0.05*rng.NormFloat64())
	}
	if got := PairedInterval(base, new, 0.95).Spread(); math.Abs(got-0.05) > 0.0075 {
		t.Errorf("Spread = %.4f, want 0.05 (the pairs' noise; the drift cancels)", got)
	}
	if got := PairedInterval(base[:5], new[:5], 0.95).Spread(); !math.IsNaN(got) {
		t.Errorf("Spread of five pairs (no 95%% interval) = %g, want NaN", got)
	}
}

// TestPairsToDetect checks the formula against simulated paired runs: with
// the pairs it asks for, a 10% change is called a regression beyond 5%
// (estimate above 5%, p ≤ alpha) in about 90% of the runs, and with half
// as many pairs clearly less often.
func TestPairsToDetect(t *testing.T) {
	tests := []struct {
		name                  string
		spread, change, thres float64
		want                  int
	}{
		{"2% noise needs the fewest pairs an exact test allows (2/2⁶ ≤ 0.05)", 0.02, 10, 5, 6},
		{"10% noise", 0.10, 10, 5, 13},
		{"a change at the threshold cannot be detected", 0.05, 5, 5, -1},
		{"unknown spread", math.NaN(), 10, 5, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PairsToDetect(tt.spread, tt.change, tt.thres, 0.05, 0.9); got != tt.want {
				t.Errorf("PairsToDetect = %d, want %d", got, tt.want)
			}
		})
	}
	rng := rand.New(rand.NewPCG(5, 6))
	n := PairsToDetect(0.10, 10, 5, 0.05, 0.9)
	if rate := detectionRate(rng, n, 0.10, 1.10); rate < 0.85 {
		t.Errorf("%d pairs caught a 10%% change in %.0f%% of simulated runs, want about 90%%", n, 100*rate)
	}
	if rate := detectionRate(rng, n/2, 0.10, 1.10); rate > 0.8 {
		t.Errorf("%d pairs (half) caught a 10%% change in %.0f%% of simulated runs, want clearly less than 90%%", n/2, 100*rate)
	}
}

func detectionRate(rng *rand.Rand, n int, spread, ratio float64) float64 {
	const runs = 400
	hits := 0
	for range runs {
		base, new := make([]float64, n), make([]float64, n)
		for i := range base {
			drift := math.Exp(0.3 * rng.NormFloat64())
			base[i], new[i] = drift, ratio*drift*math.Exp(spread*rng.NormFloat64())
		}
		s := PairedInterval(base, new, 0.95)
		if s.EstPct > 5 && s.P <= 0.05 {
			hits++
		}
	}
	return float64(hits) / runs
}
