package compare

import (
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/sim/results"
)

// testMeta is the environment of the synthetic runs.
func testMeta() *results.Meta {
	return &results.Meta{Schema: results.SchemaVersion, Run: "svl-test", Scenario: "synthetic", ScenarioHash: "abc",
		Kind: "sweep", Kernel: "6.1.0", CPU: "Test CPU", CPUs: 2, SvclabVersion: "dev",
		Tools: map[string]string{"iptables-nft": "iptables v1.8.9 (nf_tables)", "nft": "nftables v1.0.6"}}
}

// pointRecords makes one point record per p50 value, one repetition each;
// the other latencies are 2× and 4× p50.
func pointRecords(dataplane string, services int, position string, p50 ...float64) []results.Record {
	var out []results.Record
	for i, v := range p50 {
		p := &results.Point{Dataplane: dataplane, Services: services, Position: position, Repetition: i + 1,
			P50us: v, P90us: 2 * v, P99us: 4 * v}
		out = append(out, results.Record{Schema: results.SchemaVersion, Type: results.TypePoint, Point: p})
	}
	return out
}

// syntheticRun wraps records as a run with testMeta.
func syntheticRun(path string, records ...[]results.Record) *Run {
	r := &Run{Path: path, Meta: testMeta()}
	for _, rs := range records {
		r.Records = append(r.Records, rs...)
	}
	return r
}

// loadTestRun loads a run from testdata.
func loadTestRun(t *testing.T, name string) *Run {
	t.Helper()
	r, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return r
}

// scaled returns a copy of run whose latencies (p50, p90, p99, p99.9 and
// mean of every repetition) are multiplied by factor, without histograms.
func scaled(run *Run, factor float64) *Run {
	out := &Run{Path: run.Path + "+scaled", Meta: run.Meta}
	for _, r := range run.Records {
		if r.Type == results.TypePoint && r.Point != nil {
			p := *r.Point
			p.P50us, p.P90us, p.P99us, p.P999us, p.MeanUs = factor*p.P50us, factor*p.P90us, factor*p.P99us, factor*p.P999us, factor*p.MeanUs
			p.Histogram = nil
			r.Point = &p
		}
		out.Records = append(out.Records, r)
	}
	return out
}

// onlyDataplane returns a copy of run with the point records of one
// dataplane.
func onlyDataplane(run *Run, dataplane string) *Run {
	out := &Run{Path: run.Path + "#" + dataplane, Meta: run.Meta}
	for _, r := range run.Records {
		if r.Type == results.TypePoint && r.Point.Dataplane != dataplane {
			continue
		}
		out.Records = append(out.Records, r)
	}
	return out
}

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func clip(b []byte) string {
	if len(b) > 4000 {
		return string(b[:4000]) + "\n…"
	}
	return string(b)
}
