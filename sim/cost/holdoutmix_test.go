package cost

import (
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// mixScenario is a sweep whose fillers a cluster's shape makes: NodePort
// and LoadBalancer services, two and three ports, IPv6 and dual-stack ones,
// 0 to 12 endpoints.
const mixScenario = `name: mix-holdout
synthetic:
  mix:
    types: {ClusterIP: 3, NodePort: 1, LoadBalancer: 1}
    families: {IPv4: 4, IPv6: 1, DualStack: 1}
    endpoints: {0: 1, 2: 3, 12: 1}
    ports: {1: 2, 2: 1, 3: 1}
    externalIPs: 0.2
sweep:
  services: [6000]
  dataplanes: [iptables-legacy, nftables]
  positions: [last, uniform]
`

// TestHoldoutOfAMix: given the scenario a mix-shaped sweep was made from,
// the holdout predicts each point for the services it loaded, exactly as
// svclab plan --objects predicts a cluster of that composition (Predict
// with Query.Composition), and not as N one-port services; a scenario
// that is not the run's, or has no sweep, is refused.
func TestHoldoutOfAMix(t *testing.T) {
	cal, err := DefaultRun()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("mix-holdout.yaml", []byte(mixScenario))
	if err != nil {
		t.Fatal(err)
	}
	mdl, _, err := sc.SweepModel(6000, sc.Sweep.EndpointsPerService, sc.Sweep.Seed)
	if err != nil {
		t.Fatal(err)
	}
	comp, err := CompositionOf("mix", 1, mdl)
	if err != nil {
		t.Fatal(err)
	}
	var points []results.Point
	for _, dp := range []struct{ name, mode string }{{"iptables-legacy", "iptables"}, {"nftables", "nftables"}} {
		for _, pos := range []string{PositionLast, PositionUniform} {
			points = append(points, results.Point{Dataplane: dp.name, Services: 6000, Position: pos, P50us: 100, SyncFullS: 10, Rules: comp.Modes[dp.mode].Rules})
		}
	}
	run := &Run{Source: Source{Name: "mix-run", ScenarioHash: sc.Hash()}, Points: points}
	opts := Options{MaxN: 5000}
	plain, _, err := HoldoutFrom(cal, run, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.WithScenario(sc); err != nil {
		t.Fatal(err)
	}
	mixed, m, err := HoldoutFrom(cal, run, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pos := range []string{PositionLast, PositionUniform} {
		preds, err := m.Predict(Query{Composition: &comp, Position: pos})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range preds {
			if p.Dataplane == "iptables-nft" {
				continue // not in the run
			}
			checkHoldoutRow(t, mixed, p.Dataplane, "p50 µs ("+pos+")", p.P50us.Total)
			// but for the extrapolation the ×calibration column says
			want := slices.DeleteFunc(slices.Clone(p.Warnings), func(w string) bool { return strings.Contains(w, "the largest calibrated N") })
			if r := holdoutRowOf(mixed, p.Dataplane, "p50 µs ("+pos+")"); r != nil && !slices.Equal(r.Warnings, want) {
				t.Errorf("%s %s: warnings %q, want plan --objects' %q", p.Dataplane, pos, r.Warnings, want)
			}
			if pos == PositionLast && p.SyncFull != nil {
				checkHoldoutRow(t, mixed, p.Dataplane, "full sync s", p.SyncFull.Seconds)
			}
		}
	}
	if a, b := holdoutRowOf(plain, "iptables-legacy", "p50 µs (uniform)"), holdoutRowOf(mixed, "iptables-legacy", "p50 µs (uniform)"); a == nil || b == nil || a.Predicted.Value >= b.Predicted.Value {
		t.Errorf("iptables-legacy uniform p50: one-port %v, mix %v; want the mix's more KUBE-SERVICES rules to walk", a, b)
	}

	other, err := scenario.Parse("other.yaml", []byte(strings.Replace(mixScenario, "externalIPs: 0.2", "externalIPs: 0.3", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := run.WithScenario(other); err == nil || !strings.Contains(err.Error(), "give that file, unchanged") {
		t.Errorf("another scenario: %v, want a refusal", err)
	}
	noSweep, err := scenario.Parse("nosweep.yaml", []byte("name: nosweep\nsynthetic:\n  services: 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	run.Source.ScenarioHash = noSweep.Hash()
	if err := run.WithScenario(noSweep); err == nil || !strings.Contains(err.Error(), "no sweep") {
		t.Errorf("a scenario without a sweep: %v, want a refusal", err)
	}
}

// checkHoldoutRow fails unless the row of dataplane and figure predicted
// want.
func checkHoldoutRow(t *testing.T, rows []HoldoutRow, dataplane, figure string, want Estimate) {
	t.Helper()
	r := holdoutRowOf(rows, dataplane, figure)
	if r == nil {
		t.Errorf("%s %s: no row", dataplane, figure)
		return
	}
	if r.Predicted != want {
		t.Errorf("%s %s: predicted %+v, want plan --objects' %+v", dataplane, figure, r.Predicted, want)
	}
}

// holdoutRowOf is the row of dataplane and figure, nil if none.
func holdoutRowOf(rows []HoldoutRow, dataplane, figure string) *HoldoutRow {
	for i := range rows {
		if rows[i].Dataplane == dataplane && rows[i].Figure == figure {
			return &rows[i]
		}
	}
	return nil
}
