package metric

import (
	"math"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestAggregateWalkProbesTails: a walk probe's repetitions give its median
// p50 with their standard deviation, and the median and standard deviation
// of their tails (p99 − p50); a single repetition gives neither, and
// points are not walk probes.
func TestAggregateWalkProbesTails(t *testing.T) {
	probe := func(rep int, p50, p99 float64) results.Record {
		return results.Record{Type: results.TypeWalkProbe, Point: &results.Point{Dataplane: "iptables-legacy", Services: 40000,
			Position: "last", Repetition: rep, Connections: 100, P50us: p50, P99us: p99}}
	}
	tests := []struct {
		name     string
		records  []results.Record
		wantTail float64
		wantSD   float64
		extras   bool
	}{
		{"three repetitions", []results.Record{probe(1, 300, 700), probe(2, 340, 640), probe(3, 320, 1020),
			{Type: results.TypePoint, Point: &results.Point{Dataplane: "iptables-legacy", Services: 40000, Position: "last", P50us: 1, P99us: 9}}},
			400, math.Sqrt((math.Pow(400-1400.0/3, 2) + math.Pow(300-1400.0/3, 2) + math.Pow(700-1400.0/3, 2)) / 2), true},
		{"one repetition", []results.Record{probe(1, 300, 700)}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AggregateWalkProbes(tt.records)
			if len(got) != 1 {
				t.Fatalf("%d probes, want 1", len(got))
			}
			tail, ok := got[0].Extra[results.ExtraTailUs]
			if ok != tt.extras || tail != tt.wantTail || math.Abs(got[0].Extra[results.ExtraTailSD]-tt.wantSD) > 1e-9 {
				t.Errorf("extra %v: want tail %v with sd %.3f (%v)", got[0].Extra, tt.wantTail, tt.wantSD, tt.extras)
			}
		})
	}
}
