package metric

import (
	"math"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

func findFit(fits []results.Fit, dataplane, metric string) (results.Fit, bool) {
	for _, f := range fits {
		if f.Dataplane == dataplane && f.Metric == metric {
			return f, true
		}
	}
	return results.Fit{}, false
}

// TestAggregateSyntheticSweep proves the fits recover the slopes the
// synthetic sweep was built with: 20 ns/service for iptables-nft's p50
// (its 95% interval containing 20), about 0 for nftables, and sync time
// converted from seconds to ns per service (20.2 µs/service → 20200).
func TestAggregateSyntheticSweep(t *testing.T) {
	points, fits := Aggregate(sweepRecords())
	if len(points) != 10 {
		t.Fatalf("%d points, want 2 dataplanes × 5 service counts", len(points))
	}
	if p := points[0]; p.Dataplane != "iptables-nft" || p.Services != 1 || p.Repetitions != 3 || p.Connections != 6000 || p.Errors != 1 {
		t.Errorf("first point = %+v, want iptables-nft at 1 service, 3 repetitions, 6000 connections, 1 error", p)
	}
	tests := []struct {
		dataplane, metric string
		slope, tol        float64 // ns/service
		intercept         float64 // µs
	}{
		{"iptables-nft", "p50_us", 20, 0.2, 50},
		{"iptables-nft", "p90_us", 30, 0.3, 75},
		{"iptables-nft", "p99_us", 60, 0.6, 150},
		{"iptables-nft", "cpu_us_per_conn", 2, 0.02, 5},
		{"iptables-nft", "sync_full_s", 20200, 1, 10100}, // median repetition is 1% slower
		{"nftables", "p50_us", 0, 0.2, 60},
		{"nftables", "sync_full_s", 4040, 1, 4040},
	}
	for _, tc := range tests {
		t.Run(tc.dataplane+"/"+tc.metric, func(t *testing.T) {
			f, ok := findFit(fits, tc.dataplane, tc.metric)
			if !ok {
				t.Fatalf("no fit of %s on %s", tc.metric, tc.dataplane)
			}
			if math.Abs(f.SlopeNsPerService-tc.slope) > tc.tol {
				t.Errorf("slope = %v ns/service, want %v ± %v", f.SlopeNsPerService, tc.slope, tc.tol)
			}
			eps := 1e-9 * tc.slope // an exact line has a zero-width interval
			if f.SlopeCI95[0] > tc.slope+eps || f.SlopeCI95[1] < tc.slope-eps {
				t.Errorf("95%% interval %v does not contain %v", f.SlopeCI95, tc.slope)
			}
			if math.Abs(f.InterceptUs-tc.intercept) > 0.02*tc.intercept+1 {
				t.Errorf("intercept = %v µs, want about %v", f.InterceptUs, tc.intercept)
			}
			if f.N != 5 || f.Position != "last" {
				t.Errorf("fit over %d points at %q, want 5 at last", f.N, f.Position)
			}
		})
	}
	if f, _ := findFit(fits, "iptables-nft", "p50_us"); f.R2 < 0.999 {
		t.Errorf("iptables-nft p50 R² = %v, want ≥ 0.999", f.R2)
	}
}

// TestAggregateMedians proves medians over repetitions (odd and even
// counts), totals, ignoring unmeasured zeros, sort order, the minimum of
// service counts for a fit, and NsPerRule.
func TestAggregateMedians(t *testing.T) {
	pt := func(dp, pos string, n int, p50, sync float64, evaluated int) results.Record {
		return pointRecord(results.Point{Dataplane: dp, Position: pos, Services: n, Connections: 10, P50us: p50, SyncFullS: sync,
			RulesEvaluated: evaluated, Rules: n, Extra: map[string]float64{"x": p50}})
	}
	recs := []results.Record{
		pt("nftables", "last", 10, 7, 0, 0),
		pt("iptables-legacy", "uniform", 10, 1, 0, 0),
		pt("iptables-legacy", "first", 10, 5, 0, 0),
		pt("iptables-legacy", "first", 10, 1, 0.5, 0),
		pt("iptables-legacy", "first", 10, 3, 0, 0),
		pt("iptables-legacy", "first", 20, 4, 0, 0),
		pt("iptables-legacy", "first", 20, 2, 0, 0),
		{Schema: 1, Type: results.TypeFairness}, // ignored
		pt("iptables-legacy", "first", 30, 10, 0, 0),
		pt("ipvs", "last", 1, 10, 0, 3),
		pt("ipvs", "last", 2, 12, 0, 5),
		pt("ipvs", "last", 3, 14, 0, 7),
	}
	points, fits := Aggregate(recs)
	wantOrder := []struct {
		dp, pos string
		n       int
		p50     float64
		sync    float64
		conns   int
	}{
		{"iptables-legacy", "first", 10, 3, 0.5, 30},
		{"iptables-legacy", "first", 20, 3, 0, 20},
		{"iptables-legacy", "first", 30, 10, 0, 10},
		{"iptables-legacy", "uniform", 10, 1, 0, 10},
		{"nftables", "last", 10, 7, 0, 10},
		{"ipvs", "last", 1, 10, 0, 10},
		{"ipvs", "last", 2, 12, 0, 10},
		{"ipvs", "last", 3, 14, 0, 10},
	}
	if len(points) != len(wantOrder) {
		t.Fatalf("%d points, want %d", len(points), len(wantOrder))
	}
	for i, w := range wantOrder {
		p := points[i]
		if p.Dataplane != w.dp || p.Position != w.pos || p.Services != w.n || p.P50us != w.p50 || p.SyncFullS != w.sync || p.Connections != w.conns {
			t.Errorf("point %d = %s %s %d p50 %v sync %v conns %d, want %+v", i, p.Dataplane, p.Position, p.Services, p.P50us, p.SyncFullS, p.Connections, w)
		}
		if p.Extra["x"] != w.p50 {
			t.Errorf("point %d extra x = %v, want %v", i, p.Extra["x"], w.p50)
		}
	}
	wantFits := map[string]bool{
		"iptables-legacy first p50_us": true, // 3 service counts
		"ipvs last p50_us":             true,
		// sync_full_s measured at one service count only; uniform and nftables have one point
	}
	if len(fits) != len(wantFits) {
		t.Errorf("fits = %+v, want exactly %v", fits, wantFits)
	}
	for _, f := range fits {
		if !wantFits[f.Dataplane+" "+f.Position+" "+f.Metric] {
			t.Errorf("unexpected fit %+v", f)
		}
	}
	if f, ok := findFit(fits, "ipvs", "p50_us"); !ok || math.Abs(f.SlopeNsPerService-2000) > 1e-6 || math.Abs(f.NsPerRule-1000) > 1e-6 {
		t.Errorf("ipvs fit = %+v, want 2000 ns/service and 1000 ns/rule (2 rules per service)", f)
	}
}

func TestAggregateNothing(t *testing.T) {
	points, fits := Aggregate(nil)
	if points != nil || fits != nil {
		t.Errorf("Aggregate(nil) = %v, %v; want nothing", points, fits)
	}
}
