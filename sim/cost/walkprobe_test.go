package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// The synthetic walk probe: the walk costs synthUsPerRule per rule up to
// synthCacheRules rules, then synthPastCacheUs per rule more (the rules no
// longer fit in the caches); a uniform connection walks half of them.
const (
	synthCacheRules  = 20_000
	synthPastCacheUs = 0.04
)

func synthWalk(position string, n int) float64 {
	rules := float64(n)
	past := math.Max(0, rules-synthCacheRules) * synthPastCacheUs
	if position == PositionUniform {
		return synthBaseUs + synthUsPerRule*float64(n+1)/2 + past/2
	}
	return synthBaseUs + synthUsPerRule*rules + past
}

// synthWalkProbes are the synthetic walk probes of iptables-nft, exact
// medians of 3 repetitions whose p50s have a standard deviation of 1 µs.
func synthWalkProbes() []results.Point {
	var out []results.Point
	for _, n := range []int{5000, 10000, 20000, 40000, 80000} {
		for _, pos := range []string{PositionLast, PositionUniform} {
			p50 := synthWalk(pos, n)
			out = append(out, results.Point{Dataplane: "iptables-nft", Services: n, Position: pos, P50us: p50, Repetitions: 3,
				Extra: map[string]float64{results.ExtraP50SD: 1}})
		}
	}
	return out
}

// TestWalkProbeBeyondTheCalibration: with walk probes, a rule walk's p50
// beyond the calibrated sizes grows as the probes' does (the cost per rule
// rises past the caches), within the calibrated sizes it is the line's, and
// without probes it is the line's everywhere; each interval covers the truth.
// This truth's cost per rule steps up at one size, so between two probes
// past it the walk follows their chord, and the power law the probes are
// interpolated with (for a gradual rise, TestWalkProbeFollowsAGradualRise)
// is 2.3% short at 50,000: within 3%, and the interval reaches the chord.
func TestWalkProbeBeyondTheCalibration(t *testing.T) {
	run := synthRun()
	run.WalkProbes = synthWalkProbes()
	probed, err := CalibrateRun(run, Options{MaxN: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	plain := synthModel(t, Options{})
	tests := []struct {
		name     string
		model    *Model
		position string
		services int
		want     float64
		warning  string
	}{
		{"probed, last, within the probe", probed, PositionLast, 50_000, synthWalk(PositionLast, 50_000), ""},
		{"probed, uniform, within the probe", probed, PositionUniform, 50_000, synthWalk(PositionUniform, 50_000), ""},
		{"probed, last, beyond the probe", probed, PositionLast, 160_000, synthWalk(PositionLast, 160_000), "beyond the walk probe"},
		{"probed, within the calibration", probed, PositionLast, 10_000, synthWalk(PositionLast, 10_000), ""},
		{"no probe: the line", plain, PositionLast, 50_000, synthBaseUs + synthUsPerRule*50_000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			preds, err := tt.model.Predict(Query{Services: tt.services, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: tt.position})
			if err != nil {
				t.Fatal(err)
			}
			got := preds[0].P50us.Total
			if math.Abs(got.Value-tt.want) > 0.03*tt.want || !got.Contains(tt.want) {
				t.Errorf("p50 %v [%v, %v], want %v inside the interval", got.Value, got.Lo, got.Hi, tt.want)
			}
			warned := strings.Contains(strings.Join(preds[0].Warnings, "\n"), "beyond the walk probe")
			if warned != (tt.warning != "") {
				t.Errorf("warnings %q: want one saying %q: %v", preds[0].Warnings, tt.warning, warned)
			}
		})
	}
}

// synthGradualWalk is a walk whose cost per rule rises gradually with the
// rules walked, ×3 at 80,000 (the later instance of the reference VM: its
// probes at 40,000 and 80,000 services took 342 and 1,391 µs).
func synthGradualWalk(n int) float64 {
	rules := float64(n)
	return synthBaseUs + synthUsPerRule*rules*(1+rules/40_000)
}

// TestWalkProbeFollowsAGradualRise: between two probes the p50 is
// interpolated as a power law, which follows a gradually rising cost per
// rule within 2% at 50,000 (anchored at the calibration's 20,000), where
// the chord between the probes at 40,000 and 80,000 is 7% above it; the
// interval covers the truth.
func TestWalkProbeFollowsAGradualRise(t *testing.T) {
	run := synthRun()
	for _, n := range []int{5000, 10000, 20000, 40000, 80000} {
		run.WalkProbes = append(run.WalkProbes, results.Point{Dataplane: "iptables-nft", Services: n, Position: PositionLast,
			P50us: synthGradualWalk(n), Repetitions: 3, Extra: map[string]float64{results.ExtraP50SD: 1}})
	}
	m, err := CalibrateRun(run, Options{MaxN: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := m.Predict(Query{Services: 50_000, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: PositionLast})
	if err != nil {
		t.Fatal(err)
	}
	anchor := synthPoint("iptables-nft", PositionLast, 20_000).P50us
	want := anchor + synthGradualWalk(50_000) - synthGradualWalk(20_000)
	if got := preds[0].P50us.Total; math.Abs(got.Value/want-1) > 0.02 || !got.Contains(want) {
		t.Errorf("p50 %.0f [%.0f, %.0f], want %.0f within 2%%, covered", got.Value, got.Lo, got.Hi, want)
	}
}

// TestWalkProbeValidationWidens: a probe whose growth is 20% short of the
// sweep's (a probe is not the full ruleset) predicts short beyond the
// calibration; the shortfall over the last calibrated step (a quarter of
// the probe's growth) widens the interval, which then reaches the truth
// (within 1%: the widening is the shortfall itself, no more).
func TestWalkProbeValidationWidens(t *testing.T) {
	run := synthRun()
	for _, p := range synthWalkProbes() {
		p.P50us = synthBaseUs + 0.8*(p.P50us-synthBaseUs)
		run.WalkProbes = append(run.WalkProbes, p)
	}
	m, err := CalibrateRun(run, Options{MaxN: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	dm, _ := m.Dataplane("iptables-nft")
	if len(dm.Walk) == 0 || dm.Walk[0].Validation < 0.05 {
		t.Fatalf("walk curves %+v: want a validation error of the short probe", dm.Walk)
	}
	preds, err := m.Predict(Query{Services: 80_000, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: PositionLast})
	if err != nil {
		t.Fatal(err)
	}
	want, got := synthWalk(PositionLast, 80_000), preds[0].P50us.Total
	if got.Value > 0.95*want || got.Hi < 0.99*want {
		t.Errorf("p50 %v [%v, %v]: want short of %v, with the interval reaching it", got.Value, got.Lo, got.Hi, want)
	}
}

// TestWalkGrowthIntervalHoldsAMeasurement: the growth's interval is for
// what a sweep measures at n, a median of as many reloads as the probe's
// repetitions: the two means' uncertainty plus that median's spread
// (π/2·sd²/R).
func TestWalkGrowthIntervalHoldsAMeasurement(t *testing.T) {
	tests := []struct {
		name     string
		sdN, sdA float64
		reps     int
		wantHalf float64
	}{
		{"spread at n only", 30, 0, 3, tQuantile(2) * 30 * math.Sqrt((1+math.Pi/2)/3)},
		{"spread at both", 30, 4, 5, tQuantile(4) * math.Sqrt((900*(1+math.Pi/2)+16)/5)},
		{"no spread", 0, 0, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := WalkCurve{Services: []float64{5000, 50000}, P50us: []float64{40, 340}, SD: []float64{tt.sdA, tt.sdN}, Repetitions: tt.reps}
			g := c.growth(5000, 50000)
			if g.Value != 300 || math.Abs((g.Hi-g.Value)-tt.wantHalf) > 1e-9 || math.Abs((g.Value-g.Lo)-tt.wantHalf) > 1e-9 {
				t.Errorf("growth %+v: want 300 ± %.3f", g, tt.wantHalf)
			}
		})
	}
}
