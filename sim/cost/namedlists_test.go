package cost

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/scenario"
)

// TestSyntheticAnonymousSets: one endpoint a service writes no numgen
// map (no anonymous set at all: the ClusterIP range's one-element set is
// a comparison, and kube-proxy's few fixed named sets are not worth
// pricing), two write one each; other modes have none.
func TestSyntheticAnonymousSets(t *testing.T) {
	for _, tt := range []struct {
		mode string
		n, m int
		want int
	}{{"nftables", 1000, 1, 0}, {"nftables", 1000, 2, 1000}, {"nftables", 50, 0, 0}, {"iptables", 300, 2, 0}} {
		w, err := syntheticWork(tt.mode, tt.n, tt.m)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if w != nil {
			got = w.AnonymousSets
		}
		if (w == nil) != (tt.want == 0) || got != tt.want {
			t.Errorf("%s, %d services × %d endpoints: %d anonymous sets, want %d", tt.mode, tt.n, tt.m, got, tt.want)
		}
	}
}

// TestAnonymousSetsWarning: a plan of nftables on a calibration that did
// not time the kernel's anonymous-set walks warns that its full sync is a
// lower bound from AnonymousSetsWarnAt anonymous sets in a table, for
// services with two endpoints, and not for one; with the walks priced
// (the embedded default's) it does not.
func TestAnonymousSetsWarning(t *testing.T) {
	priced, err := CalibrateDefault(Options{})
	if err != nil {
		t.Fatal(err)
	}
	unpriced, err := CalibrateDefault(Options{})
	if err != nil {
		t.Fatal(err)
	}
	nft, _ := unpriced.Dataplane("nftables")
	if nft.SyncFull == nil || nft.SyncFull.AnonymousSets == nil {
		t.Fatal("the embedded default prices no anonymous-set walks of nftables' full sync")
	}
	nft.SyncFull.AnonymousSets = nil
	for _, tt := range []struct {
		model               *Model
		services, endpoints int
		want                bool
	}{{unpriced, 20000, 2, true}, {unpriced, 20000, 1, false}, {unpriced, 500, 2, false}, {priced, 20000, 2, false}} {
		preds, err := tt.model.Predict(Query{Services: tt.services, EndpointsPerService: tt.endpoints, Dataplane: "nftables"})
		if err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(strings.Join(preds[0].Warnings, "\n"), "read the full sync as a lower bound")
		if warned != tt.want {
			t.Errorf("%d services × %d endpoints, walks priced %v: warned %v, want %v (%d anonymous sets)", tt.services, tt.endpoints, tt.model == priced, warned, tt.want, preds[0].Ruleset.AnonymousSetWork.sets())
		}
	}
}

// affinityScenario is 100 services with ClientIP affinity and 12 endpoints
// each: 1,200 xt_recent tables.
const affinityScenario = `name: affinity
synthetic:
  mix:
    endpoints: {12: 1}
    sessionAffinity: 1
sweep:
  services: [100]
`

// TestRecentTablesWarning: a cluster whose ClientIP-affinity endpoints name
// RecentTablesWarnAt xt_recent tables or more warns for the rule-walk
// dataplanes on a calibration that did not time a step of their list, and
// not on one that did (the embedded default), counting one table per
// endpoint (the rendered payload's distinct --name); synthetic services,
// without affinity, name none.
func TestRecentTablesWarning(t *testing.T) {
	sc, err := scenario.Parse("affinity.yaml", []byte(affinityScenario))
	if err != nil {
		t.Fatal(err)
	}
	mdl, _, err := sc.SweepModel(100, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := CompositionOf("affinity", 1, mdl)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Modes["iptables"].RecentTables; got != 97*12 {
		t.Fatalf("%d xt_recent tables, want one per affinity endpoint (97 fillers × 12)", got)
	}
	for _, priced := range []bool{false, true} {
		m, err := CalibrateDefault(Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.Dataplanes {
			if dm := &m.Dataplanes[i]; dm.Lookup == LinearWalk && dm.Recent == nil {
				t.Fatalf("%s: the embedded default prices no xt_recent step", dm.Dataplane)
			}
			if !priced {
				m.Dataplanes[i].Recent = nil
			}
		}
		preds, err := m.Predict(Query{Composition: &c})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range preds {
			warned := strings.Contains(strings.Join(p.Warnings, "\n"), "xt_recent tables")
			if warned != (p.Lookup == LinearWalk && !priced) {
				t.Errorf("%s, step priced %v: warned %v, want it for the rule walks without a priced step only", p.Dataplane, priced, warned)
			}
		}
	}
	if n, err := syntheticRecentTables("iptables", 5000, 3); n != 0 || err != nil {
		t.Errorf("synthetic services: %d xt_recent tables (%v), want none", n, err)
	}
}
