package cost

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// synthLookupStepUs is how much faster than synthNftPerLnN the synthetic
// uniform lookup grows per ln N past 5,000 services: the map outgrows a
// cache there, which no point at N ≤ 5,000 sees.
const synthLookupStepUs = 2.0

func synthSteppedLookup(n int) float64 {
	ln := math.Log(float64(n))
	return synthNftP50 + synthNftPerLnN*ln + synthLookupStepUs*math.Max(0, ln-math.Log(5000))
}

// synthLookupRun is the synthetic sweep whose nftables uniform p50 grows
// as synthSteppedLookup, with (probes) nftables sync probes at 10,000,
// 20,000 and 40,000 services that also measured the uniform position.
func synthLookupRun(probes bool) *Run {
	run := synthRun()
	for i := range run.Points {
		if p := &run.Points[i]; p.Dataplane == "nftables" && p.Position == PositionUniform {
			p.P50us = synthSteppedLookup(p.Services) + synthNoise(p.Services)
		}
	}
	if probes {
		for _, n := range []int{10_000, 20_000, 40_000} {
			p := synthPoint("nftables", PositionUniform, n)
			p.P50us = synthSteppedLookup(n) + synthNoise(n)
			run.SyncProbes = append(run.SyncProbes, p)
		}
	}
	return run
}

// TestLookupProbesMeasureTheGrowth: calibrated on N ≤ 5,000 (MaxN), a map
// lookup whose uniform p50 outgrows the points' ln N line past them is
// predicted at 50,000 services within 10%, its interval covering the
// truth and extrapolating 1.25× from the 40,000 probe, when lookup probes
// measured it; without them the points' line falls short by more than 10%
// and its interval misses the truth. Either way, what the lookup adds is
// the total less one service's cost.
func TestLookupProbesMeasureTheGrowth(t *testing.T) {
	tests := []struct {
		name       string
		probes     bool
		wantFactor float64
	}{
		{"lookup probes", true, 1.25},
		{"no probes", false, 10},
	}
	truth := synthSteppedLookup(50_000)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := CalibrateRun(synthLookupRun(tt.probes), Options{MaxN: 5000})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := m.Predict(Query{Services: 50_000, EndpointsPerService: 1, Dataplane: "nftables", Position: PositionUniform})
			if err != nil {
				t.Fatal(err)
			}
			p50 := preds[0].P50us
			factor := p50.Extrapolation
			if factor == 0 {
				factor = preds[0].Extrapolation
			}
			if math.Abs(factor-tt.wantFactor) > 0.01*tt.wantFactor {
				t.Errorf("extrapolation ×%.2f, want ×%v", factor, tt.wantFactor)
			}
			rel := p50.Total.Value/truth - 1
			good := math.Abs(rel) <= 0.10 && p50.Total.Contains(truth)
			if good != tt.probes {
				t.Errorf("uniform p50 at 50,000: %+v against %.2f µs (%+.1f%%): within 10%% and covered %v, want %v", p50.Total, truth, 100*rel, good, tt.probes)
			}
			// What the lookup adds is the total less one service's cost.
			if added := p50.Total.Value - synthSteppedLookup(1); math.Abs(p50.Added.Value-added) > 0.5 {
				t.Errorf("uniform p50 added %.2f µs, want about %.2f (the total less one service's)", p50.Added.Value, added)
			}
		})
	}
}

// TestLookupProbesOnlyForMapLookups: a rule walk's sync probes that
// (wrongly) carried uniform traffic do not join its curves, and the
// holdout's header names the lookup probes.
func TestLookupProbesOnlyForMapLookups(t *testing.T) {
	run := synthLookupRun(true)
	walkProbe := synthPoint("iptables-nft", PositionUniform, 40_000)
	run.SyncProbes = append(run.SyncProbes, walkProbe)
	m, err := CalibrateRun(run, Options{MaxN: 5000})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dataplane string
		want      []int
	}{{"nftables", []int{10_000, 20_000, 40_000}}, {"iptables-nft", nil}} {
		dm, _ := m.Dataplane(tt.dataplane)
		var got []int
		if dm.P50Uniform != nil {
			got = dm.P50Uniform.LookupProbes
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s uniform p50's lookup probes %v, want %v", tt.dataplane, got, tt.want)
		}
	}
	if text := ProbesText(run); !strings.Contains(text, "lookup probes at 10000, 20000, 40000 services") {
		t.Errorf("ProbesText %q names no lookup probes", text)
	}
	if text := ProbesText(synthLookupRun(false)); strings.Contains(text, "lookup") {
		t.Errorf("ProbesText %q names lookup probes of a run without them", text)
	}
}

// TestPlanTextNamesTheLookupProbeFactor: plan's table shows the uniform
// p50's own extrapolation (from the largest lookup probe) in a row of its
// own when lookup probes measured it, and has no such row without them.
func TestPlanTextNamesTheLookupProbeFactor(t *testing.T) {
	q := Query{Services: 50_000, EndpointsPerService: 1, Position: PositionUniform}
	for _, probes := range []bool{true, false} {
		m, err := CalibrateRun(synthLookupRun(probes), Options{MaxN: 5000})
		if err != nil {
			t.Fatal(err)
		}
		preds, err := m.Predict(q)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := WritePlanText(&b, q, m, preds); err != nil {
			t.Fatal(err)
		}
		row := ""
		for line := range strings.Lines(b.String()) {
			if strings.Contains(line, strings.TrimSpace(lookupProbeRowLabel)) {
				row = line
			}
		}
		if probes && !(strings.Contains(row, "×1.25") && strings.Contains(row, "—")) {
			t.Errorf("with lookup probes, row %q: want nftables' ×1.25 and — for the rule walk", row)
		}
		if !probes && row != "" {
			t.Errorf("without lookup probes, row %q: want none", row)
		}
	}
}
