package cost

import (
	"math"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// synthLoadSpread is the synthetic loads' scatter in ln seconds: each
// size's three loads are its median × e^−s, e^0 and e^s (sample standard
// deviation s).
const synthLoadSpread = 0.15

// synthLoads are three loads of every nftables point of the synthetic run
// with N ≤ maxN, scattered by synthLoadSpread around the point's full and
// incremental syncs, and two wild loads at the smallest size (too small to
// be pooled).
func synthLoads(run *Run, maxN int) []results.Point {
	var out []results.Point
	for _, p := range run.Points {
		if p.Dataplane != "nftables" || p.Position != PositionLast || p.Services > maxN {
			continue
		}
		factors := []float64{math.Exp(-synthLoadSpread), 1, math.Exp(synthLoadSpread)}
		if p.Services == 1 {
			factors = []float64{0.2, 5}
		}
		for rep, f := range factors {
			load := p
			load.Repetition, load.SyncFullS, load.SyncIncrementalS = rep+1, p.SyncFullS*f, p.SyncIncrementalS*f
			out = append(out, load)
		}
	}
	return out
}

// TestLoadSpreadWidensSyncIntervals: when the calibration recorded its
// loads, a sync predicted at 10× has an interval for a median of as many
// loads as the largest size had: e^±t·s·√(π/2/R) around the value on a
// curve whose medians lie exactly on a line (where the mean's interval is
// nil); the tiny size's wild loads are not pooled. Without the loads, the
// interval is the mean's alone, as before.
func TestLoadSpreadWidensSyncIntervals(t *testing.T) {
	const maxN = 5000
	run := synthRun()
	largest := 0
	for _, n := range synthServices {
		if n <= maxN {
			largest = max(largest, n)
		}
	}
	// The sizes pooled are those of at least 1/25 of the largest's rules
	// (here 2,500 and 5,000): 2 degrees of freedom each.
	pooledDF := 4
	wantHalf := tQuantile(pooledDF) * synthLoadSpread * math.Sqrt(math.Pi/2/3)
	tests := []struct {
		name     string
		loads    bool
		wantHalf float64
	}{
		{"loads recorded", true, wantHalf},
		{"summary alone", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := *run
			if tt.loads {
				r.PointLoads = synthLoads(run, maxN)
			}
			m, err := CalibrateRun(&r, Options{MaxN: maxN})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := m.Predict(Query{Services: 10 * largest, EndpointsPerService: 1, Dataplane: "nftables", Position: PositionLast})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*SyncPrediction{preds[0].SyncFull, preds[0].SyncIncremental} {
				if s == nil {
					t.Fatal("a sync was not predicted")
				}
				above, below := math.Log(s.Seconds.Hi/s.Seconds.Value), math.Log(s.Seconds.Value/s.Seconds.Lo)
				if math.Abs(above-tt.wantHalf) > 0.01 || math.Abs(below-tt.wantHalf) > 0.01 {
					t.Errorf("%.4g s [%.4g, %.4g]: ln half-widths %.3f below and %.3f above, want %.3f", s.Seconds.Value, s.Seconds.Lo, s.Seconds.Hi, below, above, tt.wantHalf)
				}
			}
		})
	}
}

// TestLoadSpreadNeedsTwoDegreesOfFreedom: one size with two loads is not a
// spread; single loads count for nothing.
func TestLoadSpreadNeedsTwoDegreesOfFreedom(t *testing.T) {
	full := func(p results.Point) float64 { return p.SyncFullS }
	loads := []results.Point{
		{Dataplane: "nftables", Services: 5000, Rules: 5000, Repetition: 1, SyncFullS: 1},
		{Dataplane: "nftables", Services: 5000, Rules: 5000, Repetition: 2, SyncFullS: 2},
		{Dataplane: "nftables", Services: 4000, Rules: 4000, Repetition: 1, SyncFullS: 3},
	}
	if s := fitLoadSpread(loads, "", 5000, full); s != nil {
		t.Errorf("spread %+v from one degree of freedom, want none", s)
	}
	loads = append(loads, results.Point{Dataplane: "nftables", Services: 4000, Rules: 4000, Repetition: 2, SyncFullS: 3})
	s := fitLoadSpread(loads, "", 5000, full)
	if s == nil || s.DF != 2 || s.Repetitions != 2 || math.Abs(s.SD-math.Ln2/2) > 1e-9 {
		t.Errorf("spread %+v, want sd ln2/2 over 2 degrees of freedom, 2 repetitions", s)
	}
}

// TestLoadsOfOneLoadPerRepetition: every position of a repetition shares
// its load, so a point's loads are one per repetition; every sync-probe
// record is a load; other records are none.
func TestLoadsOfOneLoadPerRepetition(t *testing.T) {
	var records []results.Record
	for rep := 1; rep <= 2; rep++ {
		for _, pos := range []string{PositionLast, PositionUniform} {
			records = append(records, results.Record{Type: results.TypePoint, Point: &results.Point{Dataplane: "nftables", Services: 1000, Position: pos, Repetition: rep, SyncFullS: 0.1}})
		}
		records = append(records, results.Record{Type: results.TypeSyncProbe, Point: &results.Point{Dataplane: "nftables", Services: 20000, Repetition: rep, SyncFullS: 2}},
			results.Record{Type: results.TypeWalkProbe, Point: &results.Point{Dataplane: "iptables-legacy", Services: 20000, Repetition: rep}})
	}
	points, probes := loadsOf(records)
	if len(points) != 2 || len(probes) != 2 {
		t.Errorf("%d point loads and %d probe loads, want 2 and 2", len(points), len(probes))
	}
}

// TestLoadSpreadIsDeterministic: the spread pooled over many sizes is the
// same to the last bit on every call (a plan check's output is compared
// byte for byte; a sum in a map's order was not).
func TestLoadSpreadIsDeterministic(t *testing.T) {
	var loads []results.Point
	for n := 1000; n <= 30000; n += 1000 {
		for rep := range 3 {
			loads = append(loads, results.Point{Dataplane: "iptables-legacy", Services: n, Rules: 5*n + 9, SyncFullS: float64(n) * (1 + 0.1*float64(rep) + 1e-3*float64(n%7))})
		}
	}
	first := fitLoadSpread(loads, "iptables", 1000, func(p results.Point) float64 { return p.SyncFullS })
	for range 50 {
		if got := fitLoadSpread(loads, "iptables", 1000, func(p results.Point) float64 { return p.SyncFullS }); *got != *first {
			t.Fatalf("spread %+v, then %+v", *first, *got)
		}
	}
}
