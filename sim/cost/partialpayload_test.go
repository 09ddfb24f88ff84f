package cost

import (
	"bytes"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/render"
	iptablesrender "github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// TestPartialPayloadRules: the partial payload's rules, extrapolated past
// partialSample, are the rendered partial payload's.
func TestPartialPayloadRules(t *testing.T) {
	for _, m := range []int{0, 1, 3} {
		for _, n := range []int{1, 150, 1000, 4321} {
			got, err := partialPayloadRules("iptables", n, m)
			if err != nil {
				t.Fatal(err)
			}
			mdl, err := syntheticModel(n, m)
			if err != nil {
				t.Fatal(err)
			}
			st, err := iptablesrender.RenderPartial(&bytes.Buffer{}, mdl, iptablesrender.OptionsFor(render.Config{}), func(i int) bool { return i == n/2 })
			if err != nil {
				t.Fatal(err)
			}
			if got != st.Rules {
				t.Errorf("%d services × %d endpoints: %d partial rules, rendered %d", n, m, got, st.Rules)
			}
		}
	}
	if got, err := partialPayloadRules("nftables", 1000, 1); got != 0 || err != nil {
		t.Errorf("nftables: %d, %v; want 0, nil", got, err)
	}
}

// Known prices of the synthetic legacy incremental syncs below: user CPU
// per partial payload rule, and system CPU per kernel table entry (a rule,
// or one of a user chain's two).
const (
	synthUserPerPartialRule = 13e-6
	synthSysPerEntry        = 2e-6
)

// legacyIncrementalPoint is a synthetic calibration point of n one-endpoint
// Services whose incremental sync took synthUserPerPartialRule a partial
// rule in user space and synthSysPerEntry a table entry in the kernel;
// timeUser false leaves the user time out (a calibration before it was
// recorded).
func legacyIncrementalPoint(t *testing.T, dataplane string, n int, timeUser bool) results.Point {
	t.Helper()
	p := synthPoint(dataplane, PositionLast, n)
	s, err := countsOf("iptables", n, 1)
	if err != nil {
		t.Fatal(err)
	}
	partial, err := partialPayloadRules("iptables", n, 1)
	if err != nil {
		t.Fatal(err)
	}
	user, sys := synthUserPerPartialRule*float64(partial), synthSysPerEntry*float64(s.Rules+2*s.Chains)
	p.Rules, p.SyncIncrementalS, p.SyncIncrementalCPUS = s.Rules, user+sys, user+sys
	if timeUser {
		p.SyncIncrementalUserS = user
	}
	return p
}

// TestPredictLegacyIncrementalByPartialPayload: calibrated on fillers
// whose user and kernel times follow known prices, an iptables-legacy
// incremental sync of Services of 3 endpoints (more table rules a chain,
// fewer partial rules a table rule) is predicted as those prices give it;
// without user times, or for iptables-nft, it is read at its table as
// before.
func TestPredictLegacyIncrementalByPartialPayload(t *testing.T) {
	tests := []struct {
		name      string
		timeUser  bool
		dataplane string
		endpoints int
		priced    bool
		// warns: the partial payload is not priced apart although it
		// differs from the fillers' (unpricedPartialWarning).
		warns bool
	}{
		{"legacy, user timed", true, "iptables-legacy", 3, true, false},
		{"legacy, user not timed", false, "iptables-legacy", 3, false, true},
		{"legacy, user not timed, the fillers' own Services", false, "iptables-legacy", 1, false, false},
		{"nft, user timed", true, "iptables-nft", 3, false, false},
		{"nft, user not timed", false, "iptables-nft", 3, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var points []results.Point
			for _, n := range synthServices {
				points = append(points, legacyIncrementalPoint(t, tt.dataplane, n, tt.timeUser))
			}
			run := &Run{Source: Source{Name: "synthetic", Run: "svl-synth", Kernel: "6.1.0-test", CPU: "Test CPU", CPUs: 2}, Points: points}
			m, err := CalibrateRun(run, Options{})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := m.Predict(Query{Services: 8000, EndpointsPerService: tt.endpoints, Dataplane: tt.dataplane})
			if err != nil {
				t.Fatal(err)
			}
			if got := hasWarning(preds[0].Warnings, "not priced apart"); got != tt.warns {
				t.Errorf("warned that the partial payload is not priced apart: %v, want %v (%q)", got, tt.warns, preds[0].Warnings)
			}
			inc := preds[0].SyncIncremental
			if !tt.priced {
				if inc.Composition != nil || strings.Contains(inc.Form, "by ") {
					t.Errorf("incremental sync %s read by composition: %+v", inc.Form, inc.Composition)
				}
				return
			}
			size := preds[0].Ruleset
			want := synthUserPerPartialRule*float64(size.PartialRules) + synthSysPerEntry*float64(size.Rules+2*size.Chains)
			if !near(inc.Seconds.Value, want, 2e-3) {
				t.Errorf("incremental sync %.4f s, want %.4f (%s, %+v)", inc.Seconds.Value, want, inc.Form, inc.Composition)
			}
			if inc.Form != FormLinear+" by chains and partial payload" {
				t.Errorf("form %q", inc.Form)
			}
			if inc.Composition == nil || inc.Composition.Partial == nil || inc.Composition.Partial.ExtraRules >= 0 {
				t.Errorf("composition %+v: want fewer partial rules than the calibration's at these chains", inc.Composition)
			}
		})
	}
}

// TestAtPayloadsPartial: a restore's partial payload is priced beyond (or
// short of) the calibration's at its chains; unknown partial rules are not
// priced.
func TestAtPayloadsPartial(t *testing.T) {
	curve := SyncCurve{Form: FormLinear, Linear: stats.Fit{Slope: 1e-5, N: 10},
		Composition: &ChainComposition{RulesPerChain: 2.5, PerRule: exact(2e-6)},
		Partial:     &PartialPayload{RulesPerChain: 0.5, PerRule: Estimate{Value: 1e-5, Lo: 8e-6, Hi: 1.2e-5}}}
	tests := []struct {
		name    string
		restore restorePayload
		want    float64
		partial float64 // the extra partial rules, 0: none priced
	}{
		{"as the calibration", restorePayload{rules: 1000, chains: 400, partialRules: 200}, 1e-2, 0},
		{"fewer partial rules", restorePayload{rules: 1000, chains: 400, partialRules: 100}, 1e-2 - 100*1e-5, -100},
		{"more partial rules", restorePayload{rules: 1000, chains: 400, partialRules: 300}, 1e-2 + 100*1e-5, 100},
		{"partial rules unknown", restorePayload{rules: 1000, chains: 400}, 1e-2, 0},
	}
	for _, tt := range tests {
		got, _, price := curve.atPayloads([]restorePayload{tt.restore})
		if !near(got.Value, tt.want, 1e-9) {
			t.Errorf("%s: %v s, want %v", tt.name, got.Value, tt.want)
		}
		extra := 0.0
		if price.Partial != nil {
			extra = price.Partial.ExtraRules
		}
		if extra != tt.partial {
			t.Errorf("%s: %v extra partial rules, want %v", tt.name, extra, tt.partial)
		}
		if tt.partial < 0 && (got.Lo > got.Value || !near(price.Partial.ExtraSeconds.Lo, -100*1.2e-5, 1e-9)) {
			t.Errorf("%s: bounds %+v, partial %+v: want them swapped for fewer rules", tt.name, got, price.Partial.ExtraSeconds)
		}
	}
}
