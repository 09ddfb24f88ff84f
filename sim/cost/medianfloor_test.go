package cost

import (
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// synthLoadsRun is the synthetic sweep with loads repetitions of every
// nftables and iptables-nft point at the last position: their p99s spread
// evenly over ±spread µs around the point's, so each size's median agrees
// with every other's exactly while one load's scatters widely.
func synthLoadsRun(loads int, spread float64) *Run {
	run := synthRun()
	for _, p := range run.Points {
		if p.Position != PositionLast || p.Services == synthOutlierN {
			continue
		}
		for i := range loads {
			r := p
			r.P99us = p.P99us + spread*(2*float64(i)/float64(loads-1)-1)
			run.PointRepetitions = append(run.PointRepetitions, r)
		}
	}
	return run
}

// TestMedianFloorWidensAMapLookupConstant: a map lookup's p99 whose sizes'
// medians agree by chance gets an interval at least as wide as one
// median's own over its loads, so it covers a median 5 µs off at 50,000
// services; with too few loads for a median interval, or for a rule walk,
// nothing changes.
func TestMedianFloorWidensAMapLookupConstant(t *testing.T) {
	const spread = 20.0
	measured := 3*synthNftP50 - 5
	tests := []struct {
		name       string
		dataplane  string
		loads      int
		wantSpread bool
	}{
		{"nftables, 30 loads a size", "nftables", 30, true},
		{"nftables, 3 loads a size", "nftables", 3, false},
		{"iptables-nft, 30 loads a size", "iptables-nft", 30, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := CalibrateRun(synthLoadsRun(tt.loads, spread), Options{MaxN: 5000})
			if err != nil {
				t.Fatal(err)
			}
			dm, _ := m.Dataplane(tt.dataplane)
			if got := dm.P99.MedianSpread != nil; got != tt.wantSpread {
				t.Fatalf("p99 median spread %+v, want one: %v", dm.P99.MedianSpread, tt.wantSpread)
			}
			if !tt.wantSpread {
				return
			}
			if s := dm.P99.MedianSpread; !(s.Below > 1 && s.Above > 1) || s.Sizes != 3 {
				t.Errorf("median spread %+v: want over 1 µs each side, from the 3 sizes up to 5,000", s)
			}
			preds, err := m.Predict(Query{Services: 50_000, EndpointsPerService: 1, Dataplane: tt.dataplane, Position: PositionLast})
			if err != nil {
				t.Fatal(err)
			}
			if p99 := preds[0].P99us.Total; !p99.Contains(measured) {
				t.Errorf("p99 at 50,000 %+v does not cover a median %.1f µs within one median's scatter", p99, measured)
			}
		})
	}
}

// TestMedianSpreadAveragesTheSizes: the spread is the mean over the
// points with loads enough of how far below and above each point's value
// its loads' median interval reaches; points without loads are skipped.
func TestMedianSpreadAveragesTheSizes(t *testing.T) {
	value := func(p results.Point) float64 { return p.P99us }
	point := func(n int, v float64) results.Point {
		return results.Point{Dataplane: "nftables", Services: n, Position: PositionLast, P99us: v}
	}
	var reps, first []results.Point
	for i := range 11 {
		first = append(first, point(1, float64(i+1)))
		reps = append(reps, first[i], point(10, 10+2*float64(i+1)))
	}
	points := []results.Point{point(1, 6), point(10, 22), point(100, 7)}
	s, ok := medianSpread(points, reps, value)
	if !ok || s.Sizes != 2 {
		t.Fatalf("medianSpread %+v ok %v: want 2 sizes", s, ok)
	}
	_, lo1, hi1 := measuredInterval(first, value)
	if want := ((6 - lo1) + (22 - (10 + 2*lo1))) / 2; !near(s.Below, want, 1e-9) {
		t.Errorf("below %.3f, want %.3f", s.Below, want)
	}
	if want := ((hi1 - 6) + (10 + 2*hi1 - 22)) / 2; !near(s.Above, want, 1e-9) {
		t.Errorf("above %.3f, want %.3f", s.Above, want)
	}
}
