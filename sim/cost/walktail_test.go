package cost

import (
	"math"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// synthTail is the synthetic walk's tail (p99 − p50): the calibration
// points' jitter up to synthCacheRules rules, then growing by 10 ns per
// rule walked past them.
func synthTail(n int) float64 {
	return synthJitterUs + 0.01*math.Max(0, float64(n-synthCacheRules))
}

// synthTailProbes are synthWalkProbes with their tails recorded (or not,
// as a run from before tails were aggregated).
func synthTailProbes(tails bool) []results.Point {
	probes := synthWalkProbes()
	for i := range probes {
		p := &probes[i]
		p.P99us = p.P50us + synthTail(p.Services)
		if tails {
			p.Extra[results.ExtraTailUs], p.Extra[results.ExtraTailSD] = synthTail(p.Services), 2
		}
	}
	return probes
}

// TestWalkTailGrowsWithTheProbe: a rule walk's p99 at a fixed position
// beyond the calibration adds the walk probe's tail growth to the
// calibrated tail, within 3% of the truth and covered; a probe without
// tails leaves the calibrated tail (short by the growth); uniformly spread
// connections keep the calibrated tail either way.
func TestWalkTailGrowsWithTheProbe(t *testing.T) {
	const n = 50_000
	p99 := func(t *testing.T, tails bool, position string) Estimate {
		t.Helper()
		run := synthRun()
		run.WalkProbes = synthTailProbes(tails)
		m, err := CalibrateRun(run, Options{MaxN: 20_000})
		if err != nil {
			t.Fatal(err)
		}
		preds, err := m.Predict(Query{Services: n, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: position})
		if err != nil {
			t.Fatal(err)
		}
		return preds[0].P99us.Total
	}
	tests := []struct {
		name  string
		tails bool
		want  float64
	}{
		{"tails recorded", true, synthWalk(PositionLast, n) + synthTail(n)},
		{"no tails", false, synthWalk(PositionLast, n) + synthJitterUs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p99(t, tt.tails, PositionLast)
			if math.Abs(got.Value/tt.want-1) > 0.03 || (tt.tails && !got.Contains(tt.want)) {
				t.Errorf("p99 %.0f [%.0f, %.0f], want %.0f within 3%%", got.Value, got.Lo, got.Hi, tt.want)
			}
		})
	}
	t.Run("uniform", func(t *testing.T) {
		if with, without := p99(t, true, PositionUniform), p99(t, false, PositionUniform); with != without {
			t.Errorf("uniform p99 %+v with the probe's tails, %+v without: want the same", with, without)
		}
	})
}
