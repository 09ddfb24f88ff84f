package plot

import (
	"github.com/svclab/svclab/sim/results"
)

// sweepServices are the service counts of the synthetic sweep.
var sweepServices = []int{1, 1000, 5000, 10000, 20000}

// noise is a small deterministic wobble for repetition rep at services n.
func noise(n, rep int) float64 {
	return float64((n/1000+rep*7)%5-2) * 0.8
}

// syntheticPoint is one repetition: iptables-nft grows by 20 ns per
// service, nftables stays flat.
func syntheticPoint(dataplane, position string, n, rep int) results.Point {
	base, syncScale := 60.0, 0.4
	if dataplane == "iptables-nft" {
		syncScale = 1
		base = 50 + 0.02*float64(n)
	}
	if position == "first" {
		base = 55
	}
	y := base + noise(n, rep)
	return results.Point{
		Dataplane: dataplane, Services: n, Position: position, Repetition: rep,
		Connections: 1000, P50us: y, P90us: 1.5 * y, P99us: 3 * y,
		CPUusPerConn: y / 10, ConnPerSec: 1e6 / y,
		SyncFullS:        syncScale * (0.01 + 2e-5*float64(n)*(1+0.05*float64(rep))),
		SyncIncrementalS: syncScale * (0.002 + 1e-6*float64(n)),
		Rules:            4 + 5*n, Bytes: 300 * n, Lines: 4 + 5*n,
	}
}

// syntheticSweep returns the per-repetition records and a summary whose
// points are the repetition-1 values and whose fits are hand written.
func syntheticSweep() (*results.Summary, []results.Record) {
	s := &results.Summary{Schema: results.SchemaVersion, Run: "svl-test", Scenario: "sweep-test", Kind: "sweep", Complete: true}
	var records []results.Record
	for _, dp := range []string{"nftables", "iptables-nft"} { // out of palette order on purpose
		for _, pos := range []string{"last", "first"} {
			for _, n := range sweepServices {
				for rep := range 3 {
					p := syntheticPoint(dp, pos, n, rep)
					records = append(records, results.Record{Schema: results.SchemaVersion, Type: results.TypePoint, Point: &p})
				}
				med := syntheticPoint(dp, pos, n, 1)
				med.Repetition, med.Repetitions = 0, 3
				s.Points = append(s.Points, med)
			}
		}
	}
	s.Fits = []results.Fit{
		{Dataplane: "iptables-nft", Position: "last", Metric: "p50_us", SlopeNsPerService: 21.3, SlopeCI95: [2]float64{19.8, 22.9}, InterceptUs: 49.5, R2: 0.998, N: 5},
		{Dataplane: "nftables", Position: "last", Metric: "p50_us", SlopeNsPerService: 0.01, SlopeCI95: [2]float64{-0.2, 0.22}, InterceptUs: 60, R2: 0.01, N: 5},
		{Dataplane: "iptables-nft", Position: "last", Metric: "sync_full_s", SlopeNsPerService: 20000, SlopeCI95: [2]float64{19000, 21000}, InterceptUs: 10000, R2: 0.99, N: 5},
	}
	return s, records
}

// fairnessRun returns a run with n endpoints; weighted gives endpoint i an
// expected share proportional to i+1.
func fairnessRun(n int, weighted bool) results.FairnessRun {
	run := results.FairnessRun{Dataplane: "iptables-legacy", Service: "demo/web:http", Connections: 20000, ChiSquareP: 0.4321}
	total := 0.0
	for i := range n {
		total += weight(i, weighted)
	}
	for i := range n {
		exp := weight(i, weighted) / total
		share := exp * (1 + 0.03*float64(i%3-1))
		run.Endpoints = append(run.Endpoints, results.Endpoint{
			Endpoint: "10.244.1." + string(rune('2'+i%8)) + ":8080", Pod: podName(i),
			Share: share, ShareLo: share * 0.97, ShareHi: share * 1.03, Expected: exp,
		})
	}
	return run
}

func weight(i int, weighted bool) float64 {
	if weighted {
		return float64(i + 1)
	}
	return 1
}

func podName(i int) string {
	return "web-" + string(rune('a'+i%26))
}
