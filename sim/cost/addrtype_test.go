package cost

import (
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// addrTypePoint is a probe's median: p50 µs, its standard deviation over
// reps repetitions and, for an addrtype probe, the rules it added.
func addrTypePoint(dataplane string, services int, position string, p50, sd float64, reps, rules int) results.Point {
	p := results.Point{Dataplane: dataplane, Services: services, Position: position, P50us: p50, Repetitions: reps,
		Extra: map[string]float64{results.ExtraP50SD: sd}}
	if rules > 0 {
		p.Extra[results.ExtraAddrTypeRules] = float64(rules)
	}
	return p
}

// TestAddrTypeCost: an addrtype match costs the addrtype probe's p50 over
// the walk probe's, per rule added, less a plain rule, averaged over the
// positions probed at the smallest size with a pair; no cost without a
// walk probe of the same size, position and dataplane.
func TestAddrTypeCost(t *testing.T) {
	const plain = 0.005
	walks := []results.Point{
		addrTypePoint("iptables-legacy", 2500, PositionLast, 30, 2, 4, 0),
		addrTypePoint("iptables-legacy", 2500, PositionUniform, 20, 2, 4, 0),
		addrTypePoint("iptables-legacy", 5000, PositionLast, 60, 2, 4, 0),
		addrTypePoint("iptables-nft", 2500, PositionUniform, 25, 1, 4, 0),
	}
	tests := []struct {
		name      string
		probes    []results.Point
		dataplane string
		want      float64 // µs a match beyond a plain rule; < 0: no cost
		positions []string
	}{
		{"last", []results.Point{addrTypePoint("iptables-legacy", 2500, PositionLast, 230, 5, 4, 2500)}, "iptables-legacy", 200.0/2500 - plain, []string{PositionLast}},
		{"both positions", []results.Point{
			addrTypePoint("iptables-legacy", 2500, PositionLast, 230, 5, 4, 2500),
			addrTypePoint("iptables-legacy", 2500, PositionUniform, 240, 5, 4, 2500)}, "iptables-legacy", 210.0/2500 - plain, []string{PositionLast, PositionUniform}},
		{"the smallest size", []results.Point{
			addrTypePoint("iptables-legacy", 5000, PositionLast, 460, 5, 4, 5000),
			addrTypePoint("iptables-legacy", 2500, PositionLast, 230, 5, 4, 2500)}, "iptables-legacy", 200.0/2500 - plain, []string{PositionLast}},
		{"uniform alone", []results.Point{addrTypePoint("iptables-nft", 2500, PositionUniform, 125, 5, 4, 1000)}, "iptables-nft", 100.0/1000 - plain, []string{PositionUniform}},
		{"no walk probe of that size", []results.Point{addrTypePoint("iptables-legacy", 10000, PositionLast, 230, 5, 4, 5000)}, "iptables-legacy", -1, nil},
		{"another dataplane's", []results.Point{addrTypePoint("iptables-legacy", 2500, PositionLast, 230, 5, 4, 2500)}, "iptables-nft", -1, nil},
		{"no rules recorded", []results.Point{addrTypePoint("iptables-legacy", 2500, PositionLast, 230, 5, 4, 0)}, "iptables-legacy", -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := addrTypeCost(tt.probes, walks, tt.dataplane, plain)
			if tt.want < 0 {
				if c != nil {
					t.Fatalf("cost %+v, want none", *c)
				}
				return
			}
			if c == nil {
				t.Fatal("no cost")
			}
			e := c.PerMatchUs
			if !near(e.Value, tt.want, 1e-9) || !slices.Equal(c.Positions, tt.positions) {
				t.Errorf("%v µs a match at %v, want %v at %v", e.Value, c.Positions, tt.want, tt.positions)
			}
			if e.NoInterval || !(e.Lo < e.Value && e.Value < e.Hi) {
				t.Errorf("interval %+v does not bracket its value", e)
			}
		})
	}
}

// TestAddrTypeCostIntervalNarrowsWithPositions: a second position's pair
// (more degrees of freedom, a mean of two differences) narrows the
// interval of the same differences.
func TestAddrTypeCostIntervalNarrowsWithPositions(t *testing.T) {
	walks := []results.Point{addrTypePoint("iptables-legacy", 2500, PositionLast, 30, 6, 2, 0), addrTypePoint("iptables-legacy", 2500, PositionUniform, 30, 6, 2, 0)}
	last := addrTypePoint("iptables-legacy", 2500, PositionLast, 210, 45, 2, 2500)
	uniform := addrTypePoint("iptables-legacy", 2500, PositionUniform, 210, 45, 2, 2500)
	one := addrTypeCost([]results.Point{last}, walks, "iptables-legacy", 0).PerMatchUs
	two := addrTypeCost([]results.Point{last, uniform}, walks, "iptables-legacy", 0).PerMatchUs
	if !near(one.Value, two.Value, 1e-12) || !(two.Hi-two.Lo < (one.Hi-one.Lo)/2) {
		t.Errorf("one position %+v, two %+v: want the same value, the interval less than half as wide", one, two)
	}
}

// TestAddrTypeCostOfOneRepetition has no interval.
func TestAddrTypeCostOfOneRepetition(t *testing.T) {
	c := addrTypeCost([]results.Point{addrTypePoint("iptables-legacy", 2500, PositionLast, 230, 0, 1, 2500)},
		[]results.Point{addrTypePoint("iptables-legacy", 2500, PositionLast, 30, 0, 1, 0)}, "iptables-legacy", 0)
	if c == nil || !c.PerMatchUs.NoInterval || !near(c.PerMatchUs.Value, 0.08, 1e-9) {
		t.Fatalf("cost %+v, want 0.08 µs without interval", c)
	}
}

// TestPredictPricesAddrTypes: a cluster's traced addrtype matches add
// their calibrated cost to the p50 of the position (and to the p99 of the
// uniform position through its tail base), are shown, and are warned
// about where the calibration did not time them.
func TestPredictPricesAddrTypes(t *testing.T) {
	walk := &TracedWalk{First: 10, Mean: 3000, Last: 6000, Offset: 4, Traced: 400, AddrTypeFirst: 100, AddrTypeMean: 300, AddrTypeLast: 500}
	perMatch := Estimate{Value: 0.07, Lo: 0.05, Hi: 0.09}
	for _, pos := range []string{PositionFirst, PositionUniform, PositionLast} {
		for _, calibrated := range []bool{true, false} {
			t.Run(pos+map[bool]string{true: ", calibrated", false: ", not calibrated"}[calibrated], func(t *testing.T) {
				m := synthModel(t, Options{})
				dm, _ := m.Dataplane("iptables-nft")
				if calibrated {
					dm.AddrType = &AddrTypeCost{Services: 2500, Positions: []string{PositionLast}, Rules: 2500, PerMatchUs: perMatch, Repetitions: 4}
				}
				q := Query{Dataplane: "iptables-nft", Position: pos, Composition: &Composition{Services: 6000, ServiceRules: 6000, Walk: walk,
					Modes: map[string]Size{"iptables": {Mode: "iptables", Rules: 30000, Chains: 12000, Bytes: 3 << 20, BytesExact: true}}}}
				without := *q.Composition
				without.Walk = &TracedWalk{First: walk.First, Mean: walk.Mean, Last: walk.Last, Offset: walk.Offset, Traced: walk.Traced}
				plain := predictOf(t, m, Query{Dataplane: q.Dataplane, Position: pos, Composition: &without})
				got := predictOf(t, m, q)
				matches := walk.addrTypes(pos)
				if got.AddrTypeMatches != matches {
					t.Errorf("%v addrtype matches, want %v", got.AddrTypeMatches, matches)
				}
				added := got.P50us.Total.Value - plain.P50us.Total.Value
				warned := strings.Contains(strings.Join(got.Warnings, "\n"), "addrtype rules")
				if !calibrated {
					if added != 0 || got.AddrTypeUs != nil || !warned {
						t.Errorf("uncalibrated: p50 +%v µs, surcharge %v, warned %t; want none, none, a warning", added, got.AddrTypeUs, warned)
					}
					return
				}
				if !near(added, matches*perMatch.Value, 1e-9) || got.AddrTypeUs == nil || warned {
					t.Errorf("p50 +%v µs (surcharge %v, warned %t), want %v", added, got.AddrTypeUs, warned, matches*perMatch.Value)
				}
				if pos == PositionUniform {
					// The uniform p99 is read at the last 1% of positions,
					// whose walks have the last service's addrtype matches.
					if tail := got.P99us.Total.Value - plain.P99us.Total.Value; !near(tail, walk.AddrTypeLast*perMatch.Value, 1e-9) {
						t.Errorf("uniform p99 +%v µs, want the last service's addrtype matches' surcharge, %v", tail, walk.AddrTypeLast*perMatch.Value)
					}
				}
			})
		}
	}
}

func predictOf(t *testing.T, m *Model, q Query) Prediction {
	t.Helper()
	preds, err := m.Predict(q)
	if err != nil {
		t.Fatal(err)
	}
	return preds[0]
}
