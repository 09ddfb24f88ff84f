package cost

import (
	"cmp"
	"math"
	"testing"

	"github.com/svclab/svclab/sim/scenario"
)

// synthPerChangePerRule is the synthetic cost each further change adds to
// a partial sync, per rule of the ruleset.
const synthPerChangePerRule = 2e-8

// TestBatchedSyncsFeedProgrammingLatency: a sweep that timed a batch of 100
// changes (sweep.incrementalBatch) calibrates what each further change adds
// to a sync; the programming latency's loop then carries it, and a churn
// the loop cannot keep up with says so. Without a batch, a busy loop's
// prediction warns that it takes a partial sync to cost one change's. A
// batch of one kind (endpoint changes, Service creations) serves churn of
// that kind only.
func TestBatchedSyncsFeedProgrammingLatency(t *testing.T) {
	tests := []struct {
		name                 string
		batch                bool
		batchKind, churnKind string
		churn                float64
		wantBehind           bool
		wantWarning          string
	}{
		{"batch calibrated", true, "", "", 20, false, ""},
		{"batch calibrated, too much churn", true, "", "", 2000, true, "falls behind"},
		{"no batch", false, "", "", 20, false, "timed no batch of endpoint changes"},
		{"creations calibrated, Service churn", true, scenario.BatchServices, scenario.BatchServices, 20, false, ""},
		{"endpoint batch, Service churn", true, "", scenario.BatchServices, 20, false, "batched endpoint changes (sweep.incrementalBatchKind), not Service creations"},
		{"creations calibrated, endpoint churn", true, scenario.BatchServices, scenario.BatchEndpoints, 20, false, "batched Service creations (sweep.incrementalBatchKind), not endpoint changes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := synthRun()
			for i := range run.Points {
				if p := &run.Points[i]; tt.batch {
					p.SyncBatch, p.SyncBatchKind = 100, tt.batchKind
					p.SyncBatchS = p.SyncIncrementalS + 99*synthPerChangePerRule*float64(p.Rules)
				}
			}
			m, err := CalibrateRun(run, Options{MaxN: 5000})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := m.Predict(Query{Services: 10_000, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: PositionLast, ChurnPerSec: tt.churn, MinSyncPeriodS: 1, ChurnKind: tt.churnKind})
			if err != nil {
				t.Fatal(err)
			}
			p := preds[0]
			if p.Programming.ChangeKind != cmp.Or(tt.churnKind, scenario.BatchEndpoints) || p.SyncPerChangeKind != tt.batchKind && tt.batch {
				t.Errorf("kinds: programming latency for %q, per-change cost of %q; want %q and %q", p.Programming.ChangeKind, p.SyncPerChangeKind, tt.churnKind, tt.batchKind)
			}
			if got := p.SyncPerChange != nil; got != tt.batch {
				t.Fatalf("per-change sync predicted = %v, want %v", got, tt.batch)
			}
			if tt.batch {
				want := synthPerChangePerRule * float64(synthPoint("iptables-nft", PositionLast, 10_000).Rules)
				if got := p.SyncPerChange.Seconds.Value; math.Abs(got/want-1) > 0.02 {
					t.Errorf("per-change sync %.3g s, want %.3g s", got, want)
				}
				used := cmp.Or(tt.batchKind, scenario.BatchEndpoints) == cmp.Or(tt.churnKind, scenario.BatchEndpoints)
				if (p.Programming.PerChangeS != nil) != used || p.Programming.FallsBehind != tt.wantBehind {
					t.Errorf("programming latency %+v: want the per-change cost used = %v, falling behind = %v", p.Programming, used, tt.wantBehind)
				}
			}
			if found := tt.wantWarning != "" && hasWarning(p.Warnings, tt.wantWarning); found != (tt.wantWarning != "") {
				t.Errorf("warnings %q: want one saying %q = %v", p.Warnings, tt.wantWarning, tt.wantWarning != "")
			}
		})
	}
}

// TestPerChangeAtOrBelowZeroIsZero: a batch that took no longer than one
// change (noise larger than the cost) fits a per-change cost of zero, used
// as such without a warning that it is not usable, and the interval stays
// bounded.
func TestPerChangeAtOrBelowZeroIsZero(t *testing.T) {
	run := synthRun()
	for i := range run.Points {
		p := &run.Points[i]
		p.SyncBatch, p.SyncBatchS = 100, p.SyncIncrementalS*(0.97+0.01*float64(i%3))
	}
	m, err := CalibrateRun(run, Options{MaxN: 5000})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := m.Predict(Query{Services: 10_000, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: PositionLast, ChurnPerSec: 20, MinSyncPeriodS: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := preds[0]
	if p.SyncPerChange == nil || p.SyncPerChange.Seconds.Value != 0 || math.IsInf(p.SyncPerChange.Seconds.Hi, 0) {
		t.Fatalf("per-change sync %+v: want 0 with a bounded interval", p.SyncPerChange)
	}
	if hasWarning(p.Warnings, "not usable") {
		t.Errorf("warnings %q: a zero per-change cost is usable", p.Warnings)
	}
}

// TestSyncGrowthWarning: a sync predicted past the calibrated sizes of a
// dataplane whose syncs are known to outgrow the fitted forms
// (sim/dataplane's SyncGrowthNote: iptables-nft) carries a warning; within
// the calibration, or for another dataplane, it does not.
func TestSyncGrowthWarning(t *testing.T) {
	m, err := CalibrateRun(synthRun(), Options{MaxN: 5000})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dataplane string
		services  int
		want      bool
	}{
		{"iptables-nft", 20_000, true},
		{"iptables-nft", 1000, false},
		{"nftables", 20_000, false},
	}
	for _, tt := range tests {
		preds, err := m.Predict(Query{Services: tt.services, EndpointsPerService: 1, Dataplane: tt.dataplane, Position: PositionLast})
		if err != nil {
			t.Fatal(err)
		}
		if p := preds[0]; p.SyncFull == nil || hasWarning(p.Warnings, "may grow faster than the fitted form") != tt.want {
			t.Errorf("%s at %d services: full sync %+v, warnings %q; want the sync growth warning = %v", tt.dataplane, tt.services, p.SyncFull, p.Warnings, tt.want)
		}
	}
}
