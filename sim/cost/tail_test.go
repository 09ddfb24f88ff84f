package cost

import (
	"math"
	"testing"
)

// TestExcessBounds: the excess's bounds are the wider of the points'
// extremes and the prediction interval mean ± t·s·√(1+1/n), never below 0.
func TestExcessBounds(t *testing.T) {
	for _, tc := range []struct {
		name           string
		excess         []float64
		wantLo, wantHi float64
	}{
		// mean 47.5, s = 5, t(3) = 3.182: half = 3.182·5·√1.25 = 17.79.
		{"prediction interval wider than the extremes", []float64{40, 50, 50, 50}, 47.5 - 17.788, 47.5 + 17.788},
		// mean 39, s = √(6442/3) = 46.34: the lower bound would be negative.
		{"never below zero", []float64{1, 100, 5, 50}, 0, 39 + 3.182446305284263*math.Sqrt(6442.0/3)*math.Sqrt(1.25)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := excessBounds(tc.excess)
			if math.Abs(b.Lo-tc.wantLo) > 0.01 || math.Abs(b.Hi-tc.wantHi) > 0.01 {
				t.Errorf("bounds [%.3f, %.3f], want [%.3f, %.3f]", b.Lo, b.Hi, tc.wantLo, tc.wantHi)
			}
			if s := spreadOf(tc.excess); b.Lo > s.Lo || b.Hi < s.Hi || b.Median != s.Median {
				t.Errorf("bounds %+v narrower than the extremes %+v", b, s)
			}
		})
	}
}

// TestTailApply: a TailRatio without ExcessBounds predicts with the
// points' extremes, and a p99's lower bound is never negative.
func TestTailApply(t *testing.T) {
	p50 := CostPrediction{Total: Estimate{Value: 100, Lo: 90, Hi: 110}}
	old := TailRatio{Excess: Spread{Median: 20, Lo: 10, Hi: 30}}
	if got := old.apply(p50).Total; got.Value != 120 || got.Lo != 100 || got.Hi != 140 {
		t.Errorf("without bounds: %+v, want 120 [100, 140]", got)
	}
	wide := TailRatio{Excess: Spread{Median: 20, Lo: 10, Hi: 30}, ExcessBounds: Spread{Median: 20, Lo: 0, Hi: 60}}
	low := CostPrediction{Total: Estimate{Value: 10, Lo: -5, Hi: 25}}
	if got := wide.apply(low).Total; got.Lo < 0 || got.Value != 30 || got.Hi != 85 {
		t.Errorf("wide bounds: %+v, want 30 [≥0, 85]", got)
	}
}
