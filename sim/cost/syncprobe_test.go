package cost

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// synthQuadPerRule2 is the synthetic full sync's quadratic term: 8% of the
// sync at 5,000 services, where the sizes' noise would hide it, and 45% at
// 50,000 (libiptc's restore grows so: results/plan-holdout).
const synthQuadPerRule2 = 1.3e-11

func synthQuadSync(rules float64) float64 {
	return synthSyncBase + synthSyncPerRul*rules + synthQuadPerRule2*rules*rules
}

// synthQuadRun is the synthetic sweep with a full sync that grows as
// synthQuadSync, and (probes) iptables-nft sync probes at 10,000 and
// 20,000 services.
func synthQuadRun(probes bool) *Run {
	run := synthRun()
	for i := range run.Points {
		p := &run.Points[i]
		p.SyncFullS = synthQuadSync(float64(p.Rules))
	}
	if probes {
		for _, n := range []int{10_000, 20_000} {
			p := synthPoint("iptables-nft", "", n)
			p.SyncFullS, p.P50us, p.P99us, p.CPUusPerConn, p.SyncIncrementalS = synthQuadSync(float64(p.Rules)), 0, 0, 0, 0
			run.SyncProbes = append(run.SyncProbes, p)
		}
	}
	return run
}

// TestSyncProbesMeasureTheGrowth: calibrated on N ≤ 5,000 (MaxN), a full
// sync that grows faster than a line is predicted at 50,000 services
// within 5% (its interval covering the truth, extrapolating 2.5× from the
// 20,000 probe) when sync probes measured it at 10,000 and 20,000; without
// them the line from ≤ 5,000 falls short by more than a quarter.
func TestSyncProbesMeasureTheGrowth(t *testing.T) {
	tests := []struct {
		name       string
		probes     bool
		maxErr     float64
		wantFactor float64
	}{
		{"sync probes", true, 0.05, 2.5},
		{"no probes", false, -0.25, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := CalibrateRun(synthQuadRun(tt.probes), Options{MaxN: 5000})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := m.Predict(Query{Services: 50_000, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: PositionLast})
			if err != nil {
				t.Fatal(err)
			}
			s := preds[0].SyncFull
			if s == nil {
				t.Fatal("no full sync predicted")
			}
			rules := s.Extrapolation * float64(synthPoint("iptables-nft", PositionLast, 20_000).Rules)
			if !tt.probes {
				rules = s.Extrapolation * float64(synthPoint("iptables-nft", PositionLast, 5000).Rules)
			}
			truth := synthQuadSync(rules)
			rel := s.Seconds.Value/truth - 1
			if math.Abs(s.Extrapolation-tt.wantFactor) > 0.1*tt.wantFactor {
				t.Errorf("extrapolation ×%.2f, want about ×%v", s.Extrapolation, tt.wantFactor)
			}
			switch {
			case tt.maxErr > 0 && (math.Abs(rel) > tt.maxErr || !s.Seconds.Contains(truth)):
				t.Errorf("full sync %.3g s [%.3g, %.3g] (%s), truth %.3g s (%+.1f%%): want within %.0f%% and covered",
					s.Seconds.Value, s.Seconds.Lo, s.Seconds.Hi, s.Form, truth, rel*100, tt.maxErr*100)
			case tt.maxErr < 0 && rel > tt.maxErr:
				t.Errorf("full sync %.3g s (%s) without probes, truth %.3g s (%+.1f%%): want short by more than %.0f%%",
					s.Seconds.Value, s.Form, truth, rel*100, -tt.maxErr*100)
			}
		})
	}
}

// TestWithSyncProbesKeepsThePoints: a probe joins its own dataplane's
// points at a size they lack, in size order; a size the points have keeps
// the point's measurement.
func TestWithSyncProbesKeepsThePoints(t *testing.T) {
	points := []results.Point{{Dataplane: "nftables", Services: 1, SyncFullS: 1}, {Dataplane: "nftables", Services: 5000, SyncFullS: 2}}
	probes := []results.Point{{Dataplane: "nftables", Services: 20000, SyncFullS: 9}, {Dataplane: "nftables", Services: 5000, SyncFullS: 7},
		{Dataplane: "iptables-legacy", Services: 10000, SyncFullS: 5}, {Dataplane: "nftables", Services: 10000, SyncFullS: 4}}
	got := withSyncProbes(points, probes, "nftables")
	want := []float64{1, 2, 4, 9}
	if len(got) != len(want) {
		t.Fatalf("%d points %+v, want %d", len(got), got, len(want))
	}
	for i, p := range got {
		if p.SyncFullS != want[i] {
			t.Errorf("point %d (%d services): full sync %v, want %v", i, p.Services, p.SyncFullS, want[i])
		}
	}
}

// TestLoadRunReadsSyncProbes: a run directory's sync_probe records become
// the run's sync probes (medians over repetitions, apart from the points)
// and its sync-probe loads (every repetition), and plan check names them.
func TestLoadRunReadsSyncProbes(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(sweepDir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for rep, sync := range []float64{1.4, 1.3, 1.5} {
		rec, err := json.Marshal(results.Record{Schema: results.SchemaVersion, Type: results.TypeSyncProbe,
			Point: &results.Point{Dataplane: "iptables-legacy", Services: 20000, Repetition: rep + 1, SyncFullS: sync, Rules: 140018}})
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, rec...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, results.ResultsFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := LoadRun(sweepDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.SyncProbes) != 1 || run.SyncProbes[0].SyncFullS != 1.4 || run.SyncProbes[0].Repetitions != 3 || len(run.Points) != len(plain.Points) {
		t.Fatalf("sync probes %+v and %d points; want one probe, the median 1.4 s of 3, and the %d points", run.SyncProbes, len(run.Points), len(plain.Points))
	}
	if len(run.SyncProbeLoads) != 3 || len(plain.SyncProbeLoads) != 0 || len(run.PointLoads) == 0 {
		t.Errorf("%d sync-probe loads (without the probes %d) and %d point loads: want the 3 repetitions, none, and the points'", len(run.SyncProbeLoads), len(plain.SyncProbeLoads), len(run.PointLoads))
	}
	if got := ProbesText(run); !strings.Contains(got, "sync probes at 20000 services") || strings.Contains(got, "walk probes") {
		t.Errorf("probes text %q", got)
	}
	if got := ProbesText(plain); got != "" {
		t.Errorf("probes text %q of a run without probes, want none", got)
	}
}

// synthIncrQuad is a synthetic incremental sync that grows faster than a
// line (kube-proxy's nftables partial sync did: results/plan-holdout).
func synthIncrQuad(rules float64) float64 { return synthIncrPerRul*rules + 2e-11*rules*rules }

// TestSyncProbesCalibrateIncrementalSyncAndMemory: sync probes that timed
// an incremental sync and measured kernel memory join those fits too (their
// largest ruleset is the probe's), so an incremental sync growing faster
// than a line is predicted at 50,000 services within 10% and covered, where
// the points alone fall short by more than 20%; a probe recorded without
// them (0) leaves both fits to the points.
func TestSyncProbesCalibrateIncrementalSyncAndMemory(t *testing.T) {
	const memPerRule = 700
	tests := []struct {
		name         string
		probeTimed   bool
		wantMaxN     int // the largest calibrated size of both fits
		maxIncrErr   float64
		shortIncrErr float64
	}{
		{"probes timed them", true, 20_000, 0.10, 0},
		{"probes from before", false, 5000, 0, -0.20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := synthRun()
			for i := range run.Points {
				p := &run.Points[i]
				p.SyncIncrementalS, p.KernelMemBytes = synthIncrQuad(float64(p.Rules))*(1+0.05*synthNoise(p.Services)), int64(memPerRule*p.Rules)
			}
			for _, n := range []int{10_000, 20_000} {
				p := synthPoint("iptables-nft", "", n)
				p.P50us, p.P99us, p.CPUusPerConn, p.SyncIncrementalS = 0, 0, 0, 0
				if tt.probeTimed {
					p.SyncIncrementalS, p.KernelMemBytes = synthIncrQuad(float64(p.Rules))*(1+0.05*synthNoise(n)), int64(memPerRule*p.Rules)
				}
				run.SyncProbes = append(run.SyncProbes, p)
			}
			m, err := CalibrateRun(run, Options{MaxN: 5000})
			if err != nil {
				t.Fatal(err)
			}
			dm, _ := m.Dataplane("iptables-nft")
			wantRules := float64(synthPoint("iptables-nft", "", tt.wantMaxN).Rules)
			if dm.SyncIncremental == nil || dm.SyncIncremental.MaxRules != wantRules || dm.KernelMem == nil || dm.KernelMem.MaxRules != wantRules {
				t.Fatalf("incremental %+v, memory %+v: want both calibrated up to %v rules", dm.SyncIncremental, dm.KernelMem, wantRules)
			}
			preds, err := m.Predict(Query{Services: 50_000, EndpointsPerService: 1, Dataplane: "iptables-nft", Position: PositionLast})
			if err != nil {
				t.Fatal(err)
			}
			rules := float64(synthPoint("iptables-nft", "", 50_000).Rules)
			s, truth := preds[0].SyncIncremental, synthIncrQuad(rules)
			rel := s.Seconds.Value/truth - 1
			if tt.maxIncrErr > 0 && (math.Abs(rel) > tt.maxIncrErr || !s.Seconds.Contains(truth)) {
				t.Errorf("incremental sync %.3g s [%.3g, %.3g] (%s), truth %.3g s (%+.1f%%): want within %.0f%% and covered",
					s.Seconds.Value, s.Seconds.Lo, s.Seconds.Hi, s.Form, truth, rel*100, tt.maxIncrErr*100)
			}
			if tt.shortIncrErr < 0 && rel > tt.shortIncrErr {
				t.Errorf("incremental sync %.3g s (%s) from the points alone, truth %.3g s (%+.1f%%): want short by more than %.0f%%",
					s.Seconds.Value, s.Form, truth, rel*100, -tt.shortIncrErr*100)
			}
			if mem := preds[0].KernelMemMB; mem == nil || math.Abs(mem.Value/(memPerRule*rules/1e6)-1) > 0.01 {
				t.Errorf("kernel memory %+v MB, want %.1f", mem, memPerRule*rules/1e6)
			}
		})
	}
}
