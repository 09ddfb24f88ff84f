package cost

import (
	"math"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// TestChainCompositionOfFillers: the composition made from a calibration
// of E endpoints a Service gives back, at the chains of any number of such
// Services, their rules exactly (pinned against route.PayloadSize).
func TestChainCompositionOfFillers(t *testing.T) {
	curve := SyncCurve{Form: FormLinear, Measured: []MeasuredSync{{Rules: 25018, Seconds: 0.15}}}
	for _, endpoints := range []int{1, 2, 3} {
		cc, err := newChainComposition("iptables", endpoints, curve)
		if err != nil || cc == nil {
			t.Fatalf("%d endpoints: %v, %v", endpoints, cc, err)
		}
		for _, n := range []int{1000, 5000, 46625, 100000} {
			s, err := countsOf("iptables", n, endpoints)
			if err != nil {
				t.Fatal(err)
			}
			if got := cc.RulesAt(float64(s.Chains)); math.Abs(got-float64(s.Rules)) > 1e-6 {
				t.Errorf("%d endpoints, %d services: %.3f rules at %d chains, want %d", endpoints, n, got, s.Chains, s.Rules)
			}
		}
	}
}

// TestPerRulePrice: a rule is priced at the median of the two smallest
// sizes' seconds a rule and the slope between them, its interval spanning
// the three; without a size of perRuleMinRules rules there is no
// composition.
func TestPerRulePrice(t *testing.T) {
	tests := []struct {
		name  string
		sizes []MeasuredSync
		want  Estimate
	}{
		{"one size", []MeasuredSync{{Rules: 25000, Seconds: 0.15}}, Estimate{Value: 6e-6, Lo: 6e-6, Hi: 6e-6}},
		{"slope above", []MeasuredSync{{Rules: 25000, Seconds: 0.15}, {Rules: 50000, Seconds: 0.4}}, Estimate{Value: 8e-6, Lo: 6e-6, Hi: 1e-5}},
		{"slope below", []MeasuredSync{{Rules: 25000, Seconds: 0.15}, {Rules: 50000, Seconds: 0.2}}, Estimate{Value: 4e-6, Lo: 2e-6, Hi: 6e-6}},
		{"a noisy smallest size", []MeasuredSync{{Rules: 5000, Seconds: 0.05}, {Rules: 12500, Seconds: 0.085}, {Rules: 25000, Seconds: 0.17}}, Estimate{Value: 6.8e-6, Lo: 4.6666666666e-6, Hi: 1e-5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := perRulePrice(tt.sizes)
			if !near(got.Value, tt.want.Value, 1e-9) || !near(got.Lo, tt.want.Lo, 1e-9) || !near(got.Hi, tt.want.Hi, 1e-9) {
				t.Errorf("%+v, want %+v", got, tt.want)
			}
		})
	}
	small := SyncCurve{Form: FormLinear, Measured: []MeasuredSync{{Rules: 33, Seconds: 0.0025}}}
	if cc, err := newChainComposition("iptables", 1, small); err != nil || cc != nil {
		t.Errorf("a curve of 33 rules: %+v, %v; want no composition", cc, err)
	}
}

// TestAtPayloadsByChains: with a composition, a restore is read at the
// rules of a calibration payload of its chains and its other rules priced
// apart (bounds swapped for fewer); of the calibration's own composition
// it reads as at its rules; a restore of unknown chains, or a curve
// without a composition, reads at its rules.
func TestAtPayloadsByChains(t *testing.T) {
	line := SyncCurve{Form: FormLinear, Linear: stats.Fit{Intercept: 1, Slope: 1e-6, N: 10}}
	cc := &ChainComposition{RulesPerChain: 2.5, RulesAtNoChains: -16, PerRule: Estimate{Value: 2e-6, Lo: 1e-6, Hi: 3e-6}}
	withCC := line
	withCC.Composition = cc
	tests := []struct {
		name      string
		curve     SyncCurve
		restore   restorePayload
		read      float64
		extra     float64
		value     float64
		differs   bool
		noPricing bool
	}{
		{"calibration's composition", withCC, restorePayload{rules: 2484, chains: 1000}, 2484, 0, line.At(2484).Value, false, false},
		{"more rules a chain", withCC, restorePayload{rules: 3000, chains: 1000}, 2484, 516, line.At(2484).Value + 516*2e-6, true, false},
		{"fewer rules a chain", withCC, restorePayload{rules: 2000, chains: 1000}, 2484, -484, line.At(2484).Value - 484*2e-6, true, false},
		{"chains unknown", withCC, restorePayload{rules: 3000}, 3000, 0, line.At(3000).Value, false, true},
		{"no composition", line, restorePayload{rules: 3000, chains: 1000}, 3000, 0, line.At(3000).Value, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, read, price := tt.curve.atPayloads([]restorePayload{tt.restore})
			if read[0] != tt.read || !near(got.Value, tt.value, 1e-12) {
				t.Fatalf("read at %v rules, %v s; want %v rules, %v s", read[0], got.Value, tt.read, tt.value)
			}
			if tt.noPricing {
				if price != nil {
					t.Errorf("priced %+v, want none", price)
				}
				return
			}
			if price == nil || price.ExtraRules != tt.extra || price.Differs() != tt.differs {
				t.Fatalf("price %+v, want %v extra rules, differs %v", price, tt.extra, tt.differs)
			}
			if e := price.ExtraSeconds; e.Lo > e.Value || e.Hi < e.Value {
				t.Errorf("extra rules' price %+v: bounds out of order", e)
			}
		})
	}
}

// TestPredictLegacyFullSyncByChains: calibrated on one-endpoint Services,
// iptables-legacy's full sync of three-endpoint Services (more rules a
// chain) is read at the rules of the calibration's payload of as many
// chains plus the extra rules' price (the 5,000-Service size's seconds a
// rule: the median of 2,500's, 5,000's and the slope between them); its
// incremental sync and
// iptables-nft's full sync are read at their rules.
func TestPredictLegacyFullSyncByChains(t *testing.T) {
	var points []results.Point
	for _, n := range synthServices {
		for _, dp := range []string{"iptables-legacy", "iptables-nft"} {
			points = append(points, synthPoint(dp, PositionLast, n), synthPoint(dp, PositionUniform, n))
		}
	}
	run := &Run{Source: Source{Name: "synthetic", Run: "svl-synth", Kernel: "6.1.0-test", CPU: "Test CPU", CPUs: 2}, Points: points}
	m, err := CalibrateRun(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := m.Predict(Query{Services: 8000, EndpointsPerService: 3})
	if err != nil {
		t.Fatal(err)
	}
	curves := map[string]*SyncCurve{}
	for _, dm := range m.Dataplanes {
		curves[dm.Dataplane] = dm.SyncFull
	}
	for _, p := range preds {
		full := p.SyncFull
		switch p.Dataplane {
		case "iptables-legacy":
			if full.Composition == nil || !strings.Contains(full.Form, "by chains") {
				t.Fatalf("iptables-legacy full sync %+v: want read by chains", full)
			}
			eq := curves["iptables-legacy"].Composition.RulesAt(float64(p.Ruleset.Chains))
			want := synthSyncBase + synthSyncPerRul*eq + (float64(p.Ruleset.Rules)-eq)*(synthSyncBase/25018+synthSyncPerRul)
			if !near(full.Seconds.Value, want, 1e-3) {
				t.Errorf("iptables-legacy full sync %v s, want %v", full.Seconds.Value, want)
			}
			if p.SyncIncremental.Composition != nil {
				t.Errorf("incremental sync read by chains: %+v", p.SyncIncremental)
			}
		case "iptables-nft":
			if full.Composition != nil {
				t.Errorf("iptables-nft full sync read by chains: %+v", full)
			}
		}
	}
}

// TestReadNote: a beyond-calibration warning names what its rules are of.
func TestReadNote(t *testing.T) {
	same := &CompositionPrice{EquivalentRules: 1000, ExtraRules: 5}
	more := &CompositionPrice{EquivalentRules: 1000, ExtraRules: 200}
	tests := []struct {
		restores    int
		composition *CompositionPrice
		want        string
	}{
		{1, nil, ""},
		{1, same, ""},
		{2, nil, " (its largest family's payload)"},
		{1, more, " (read as a calibration payload of as many chains)"},
		{2, more, " (its largest family's payload, read as a calibration payload of as many chains)"},
	}
	for _, tt := range tests {
		if got := readNote(tt.restores, tt.composition); got != tt.want {
			t.Errorf("readNote(%d, %+v) = %q, want %q", tt.restores, tt.composition, got, tt.want)
		}
	}
}
