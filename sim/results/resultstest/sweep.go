// Package resultstest holds a synthetic sweep for tests of the packages that
// read results: deterministic records shaped like a runner's (a meta record
// from a user-mode-linux guest, then 2 dataplanes × 5 service counts × 3
// repetitions), with a known slope (20 ns per service on iptables-nft, flat
// on nftables) and a small wobble.
package resultstest

import (
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
)

// SweepServices are the synthetic sweep's service counts.
var SweepServices = []int{1, 1000, 5000, 10000, 20000}

// sweepNoise is a small deterministic wobble, at most ±1 µs.
func sweepNoise(n, rep int) float64 {
	return []float64{-0.6, 0.2, 0.9}[rep] * float64(1+(n/1000)%3) / 3
}

// Point is one repetition of the synthetic sweep: on iptables-nft
// p50 is 50 + 0.02·N µs (20 ns per service), on nftables it is flat.
func Point(name string, n, rep int) results.Point {
	p50 := 60.0
	sync := 0.004 + 4e-6*float64(n)
	if name == string(dataplane.IPTablesNFT) {
		p50 = 50 + 0.02*float64(n)
		sync = 0.01 + 2e-5*float64(n)
	}
	p50 += sweepNoise(n, rep)
	return results.Point{
		Dataplane: name, Services: n, Position: "last", Repetition: rep + 1,
		Connections: 2000, Errors: rep % 2,
		P50us: p50, P90us: 1.5 * p50, P99us: 3 * p50, CPUusPerConn: p50 / 10, ConnPerSec: 1e6 / p50,
		SyncFullS: sync * (1 + 0.01*float64(rep)), SyncIncrementalS: sync / 20,
		Rules: 4 + 5*n, Bytes: 280 * n, Lines: 4 + 5*n,
	}
}

// SweepRecords is the synthetic sweep's results.jsonl: a meta record (in a
// user-mode-linux guest) then 2 dataplanes × 5 service counts × 3
// repetitions, interleaved as a runner would.
func SweepRecords() []results.Record {
	meta := &results.Meta{
		Schema: results.SchemaVersion, Run: "svl-test", Scenario: "sweep-test", ScenarioHash: "0123456789abcdef0123",
		Kind: "sweep", Started: "2026-01-02T03:04:05Z", Kernel: "6.1.0-test", GuestKernel: "6.1.0-uml",
		CPU: "Test CPU", CPUs: 2, GoVersion: "go1.26.8", GitCommit: "abc1234", SvclabVersion: "dev",
		Tools: map[string]string{"nft": "nftables v1.0.6", string(dataplane.IPTablesNFT): "iptables v1.8.9 (nf_tables)"},
	}
	recs := []results.Record{{Schema: results.SchemaVersion, Type: results.TypeMeta, Meta: meta}}
	for rep := range 3 {
		for _, n := range SweepServices {
			for _, dp := range []string{string(dataplane.NFTables), string(dataplane.IPTablesNFT)} {
				p := Point(dp, n, rep)
				recs = append(recs, results.Record{Schema: results.SchemaVersion, Type: results.TypePoint, Point: &p})
			}
		}
	}
	return recs
}

// PointRecord wraps a point as a record.
func PointRecord(p results.Point) results.Record {
	return results.Record{Schema: results.SchemaVersion, Type: results.TypePoint, Point: &p}
}
