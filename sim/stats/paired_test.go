package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSignedRankCDF(t *testing.T) {
	tests := []struct {
		n    int
		w    int
		want float64
	}{
		{n: 1, w: 0, want: 0.5},
		{n: 3, w: 0, want: 1.0 / 8},
		{n: 3, w: 2, want: 3.0 / 8}, // {}, {1}, {2}
		{n: 6, w: 0, want: 1.0 / 64},
		{n: 6, w: 2, want: 3.0 / 64},     // {}, {1}, {2}
		{n: 10, w: 8, want: 25.0 / 1024}, // the two-sided 5% critical value of n=10 (tables: 8)
		{n: 10, w: 55, want: 1},          // everything
	}
	for _, tt := range tests {
		got := signedRankCDF(tt.n)[tt.w]
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("P(W ≤ %d | n=%d) = %.8f, want %.8f", tt.w, tt.n, got, tt.want)
		}
	}
	// Against brute force: every subset of the ranks 1..n.
	for n := 1; n <= 12; n++ {
		counts := make([]float64, n*(n+1)/2+1)
		for mask := 0; mask < 1<<n; mask++ {
			sum := 0
			for r := 1; r <= n; r++ {
				if mask&(1<<(r-1)) != 0 {
					sum += r
				}
			}
			counts[sum]++
		}
		cdf, acc := signedRankCDF(n), 0.0
		for w, c := range counts {
			acc += c / float64(int(1)<<n)
			if math.Abs(cdf[w]-acc) > 1e-12 {
				t.Fatalf("n=%d: P(W ≤ %d) = %v, brute force %v", n, w, cdf[w], acc)
			}
		}
	}
}

func TestSignedRankP(t *testing.T) {
	tests := []struct {
		name string
		d    []float64
		want float64
	}{
		{"no differences", nil, 1},
		{"all zero", []float64{0, 0, 0}, 1},
		{"six positive", []float64{1, 2, 3, 4, 5, 6}, 2.0 / 64},
		{"six negative", []float64{-1, -2, -3, -4, -5, -6}, 2.0 / 64},
		{"nearly balanced: W+ = 16 of mean 18", []float64{1, -2, 3, -4, 5, -6, 7, -8}, 2 * 108.0 / 256},
		{"tied magnitudes get their average rank", []float64{1, 1, 1, 1, 1, 1}, 2.0 / 64},
		{"one of ten against", []float64{-1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2 * 2.0 / 1024},
	}
	for _, tt := range tests {
		if got := SignedRankP(tt.d); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: p = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Above the exact limit the normal approximation takes over.
	rng := rand.New(rand.NewPCG(3, 4))
	big := make([]float64, signedRankExactMax+50)
	for i := range big {
		big[i] = rng.NormFloat64() + 0.3
	}
	if p := SignedRankP(big); p > 1e-4 {
		t.Errorf("250 differences centred on 0.3σ: p = %v, want tiny", p)
	}
}

func TestPairedIntervalTable(t *testing.T) {
	base := []float64{100, 140, 90, 120, 80, 110, 95, 130}
	scaled := func(f float64, jitter ...float64) []float64 {
		out := make([]float64, len(base))
		for i, v := range base {
			out[i] = v * f
			if i < len(jitter) {
				out[i] *= jitter[i]
			}
		}
		return out
	}
	tests := []struct {
		name        string
		base, new   []float64
		wantEst     float64
		wantBounded bool
		coversZero  bool
	}{
		{"identical", base, base, 0, true, true},
		{"every pair +30% (the spread between pairs does not matter)", base, scaled(1.3), 30, true, false},
		{"every pair -20%", base, scaled(0.8), -20, true, false},
		{"+10% with ±1% jitter", base, scaled(1.1, 1.01, 0.99, 1.005, 0.995, 1.01, 0.99, 1, 1), 10, true, false},
		{"five pairs: no 95% interval", base[:5], scaled(1.3)[:5], 30, false, true},
		{"a pair with a non-finite value is dropped", append([]float64{math.NaN()}, base...), append([]float64{1}, scaled(1.3)...), 30, true, false},
		{"non-positive values: a difference over base's median", []float64{0, 1, 2, 3, 4, 5, 6}, []float64{1, 2, 3, 4, 5, 6, 7}, 100.0 / 3, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := PairedInterval(tt.base, tt.new, 0.95)
			if s.Bounded != tt.wantBounded {
				t.Fatalf("Bounded = %v, want %v (%+v)", s.Bounded, tt.wantBounded, s)
			}
			if math.Abs(s.EstPct-tt.wantEst) > 0.6 {
				t.Errorf("EstPct = %v, want %v", s.EstPct, tt.wantEst)
			}
			if got := s.LoPct <= 0 && 0 <= s.HiPct; got != tt.coversZero {
				t.Errorf("interval [%v, %v] covers 0: %v, want %v", s.LoPct, s.HiPct, got, tt.coversZero)
			}
			if s.Bounded && !(s.LoPct <= s.EstPct && s.EstPct <= s.HiPct) {
				t.Errorf("estimate %v outside its interval [%v, %v]", s.EstPct, s.LoPct, s.HiPct)
			}
		})
	}
}

// TestPairedIntervalCoverage: against a known distribution (log-ratios
// normal around log 1.1), the 95% interval holds the true +10% in about
// 95% of samples.
func TestPairedIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const trials, n = 2000, 10
	covered := 0
	for range trials {
		base, new := make([]float64, n), make([]float64, n)
		for i := range n {
			base[i] = 100 * math.Exp(0.4*rng.NormFloat64())
			new[i] = base[i] * 1.1 * math.Exp(0.05*rng.NormFloat64())
		}
		if s := PairedInterval(base, new, 0.95); s.LoPct <= 10 && 10 <= s.HiPct {
			covered++
		}
	}
	if rate := float64(covered) / trials; rate < 0.93 || rate > 0.99 {
		t.Errorf("coverage %.3f, want about 0.95 (the interval's level for n=10 is 0.951)", rate)
	}
}

// abSample draws one simulated A/B run of n pairs: a machine whose speed
// drifts by ±40% from one repetition to the next (shared by both values
// of a pair), 5% noise of each measurement, and a change of effect
// (1.15: +15%) on the new side.
func abSample(rng *rand.Rand, n int, effect float64) (base, new []float64) {
	base, new = make([]float64, n), make([]float64, n)
	for i := range n {
		drift := math.Exp(0.35 * rng.NormFloat64())
		base[i] = 20 * drift * math.Exp(0.05*rng.NormFloat64())
		new[i] = 20 * effect * drift * math.Exp(0.05*rng.NormFloat64())
	}
	return base, new
}

// TestPairedFalseAlarmAndDetection simulates many seeded A/A and A/B runs
// on a drifting machine and decides each as svclab ab's gate does with a
// 5% threshold (worse by more than 5%, p ≤ 0.05): an A/A run is flagged at
// most 5% of the time (and the two-sided test's size is about 5%), a
// planted +15% is detected in at least 90% of runs with 10 pairs. The unpaired test on the same
// data detects far less: pairing is what cancels the drift.
func TestPairedFalseAlarmAndDetection(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2026))
	const runs, n = 2000, 10
	alarms, significant, detections, unpaired := 0, 0, 0, 0
	for range runs {
		b, a := abSample(rng, n, 1)
		s := PairedInterval(b, a, 0.95)
		if s.P <= 0.05 {
			significant++
		}
		if s.P <= 0.05 && s.EstPct > 5 {
			alarms++
		}
		b, nw := abSample(rng, n, 1.15)
		if s := PairedInterval(b, nw, 0.95); s.P <= 0.05 && s.EstPct > 5 {
			detections++
		}
		if s := ShiftInterval(b, nw, 0.95); s.Bounded && s.LoPct > 0 {
			unpaired++
		}
	}
	if rate := float64(alarms) / runs; rate > 0.05 {
		t.Errorf("A/A false-alarm rate %.3f, want ≤ 0.05", rate)
	}
	// The exact test's size at n=10 is 2·25/1024 = 0.049; allow three
	// standard errors of 2000 trials.
	if rate := float64(significant) / runs; rate > 0.049+3*math.Sqrt(0.049*0.951/runs) {
		t.Errorf("A/A two-sided rejection rate %.3f, want about 0.049", rate)
	}
	if rate := float64(detections) / runs; rate < 0.9 {
		t.Errorf("+15%% detection rate %.3f, want ≥ 0.90", rate)
	}
	if float64(unpaired) >= 0.5*float64(detections) {
		t.Errorf("the unpaired interval detected %d of %d, the paired %d: pairing should matter on a drifting machine", unpaired, runs, detections)
	}
}
