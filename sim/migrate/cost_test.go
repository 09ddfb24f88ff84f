package migrate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// costFixture is sim/cost's recorded test sweep: iptables-legacy,
// iptables-nft and nftables, no IPVS.
const costFixture = "../cost/testdata/sweep1"

func fixtureModel(t *testing.T) *cost.Model {
	t.Helper()
	m, err := cost.Calibrate(costFixture, cost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scaledCluster is a random cluster of n Services: the cost's second size.
func scaledCluster(t *testing.T, n int) *model.Model {
	t.Helper()
	m, notes := withNodeAddrs(randomCluster(t, 9, n))
	if len(notes) > 0 {
		t.Fatalf("the random cluster lacks node addresses: %v", notes)
	}
	return m
}

// TestCostsOfEverySide: every side of a migration has a cost on every
// dataplane of its mode at every size: a ruleset, and, where the fixture is
// calibrated, every figure with an interval around its value; a mode the
// fixture did not calibrate (IPVS) says so instead of leaving a gap.
func TestCostsOfEverySide(t *testing.T) {
	m := fixtureModel(t)
	tests := []struct {
		from, to string
		// uncalibrated are the modes the fixture has no points of.
		uncalibrated []dataplane.Mode
	}{
		{"iptables", "nftables", nil},
		{"nftables@1.35", "nftables@1.37", nil},
		{"ipvs", "nftables", []dataplane.Mode{dataplane.ModeIPVS}},
		{"iptables@1.34", "ipvs@1.36", []dataplane.Mode{dataplane.ModeIPVS}},
	}
	for _, tt := range tests {
		t.Run(tt.from+"→"+tt.to, func(t *testing.T) {
			r := compare(t, randomCluster(t, 3, 20), tt.from, tt.to, Node{})
			c, err := CostsOf(m, r.From, r.To, []Sized{{Scale: 1, Model: r.Model}, {Scale: 10, Model: scaledCluster(t, 200)}})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Sizes) != 2 || c.Calibration.Run != "svl-26db" {
				t.Fatalf("%d sizes, calibration %+v; want 2 sizes of svl-26db", len(c.Sizes), c.Calibration)
			}
			for _, sz := range c.Sizes {
				for _, sd := range []struct {
					side  Side
					costs []DataplaneCost
				}{{r.From, sz.From}, {r.To, sz.To}} {
					want := ModeDataplanes(sd.side.Mode)
					if len(sd.costs) != len(want) || len(want) == 0 {
						t.Fatalf("%g×: %s has %d dataplane costs, want %d", sz.Scale, sd.side, len(sd.costs), len(want))
					}
					for i, dc := range sd.costs {
						checkDataplaneCost(t, m, sz, sd.side, want[i].Name, dc, slices.Contains(tt.uncalibrated, sd.side.Mode))
					}
				}
				if sz.Scale == 10 && sz.From[0].Ruleset.Rules <= c.Sizes[0].From[0].Ruleset.Rules {
					t.Errorf("10×: %d rules, not more than the cluster's %d", sz.From[0].Ruleset.Rules, c.Sizes[0].From[0].Ruleset.Rules)
				}
			}
			var b strings.Builder
			if err := costText(&b, c); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "not calibrated"); got != (len(tt.uncalibrated) > 0) {
				t.Errorf("the text says \"not calibrated\": %v, want %v:\n%s", got, len(tt.uncalibrated) > 0, b.String())
			}
		})
	}
}

// checkDataplaneCost fails when a figure the issue asks for is missing
// though m can predict it.
func checkDataplaneCost(t *testing.T, m *cost.Model, sz Cost, side Side, want dataplane.Name, dc DataplaneCost, uncalibrated bool) {
	t.Helper()
	where := side.String() + " " + dc.Dataplane
	if dc.Dataplane != string(want) || dc.Version != string(side.Version.OrLatest()) {
		t.Errorf("%g× %s: dataplane %s@%s, want %s@%s", sz.Scale, where, dc.Dataplane, dc.Version, want, side.Version.OrLatest())
	}
	if dc.Ruleset.Rules <= 0 || dc.Ruleset.Bytes <= 0 {
		t.Errorf("%g× %s: ruleset %+v", sz.Scale, where, dc.Ruleset)
	}
	if uncalibrated {
		if dc.Prediction != nil || !strings.Contains(dc.Missing, "not calibrated") {
			t.Errorf("%g× %s: uncalibrated, yet prediction %v, missing %q", sz.Scale, where, dc.Prediction != nil, dc.Missing)
		}
		return
	}
	p := dc.Prediction
	if p == nil {
		t.Fatalf("%g× %s: no prediction (%s)", sz.Scale, where, dc.Missing)
	}
	if !reflect.DeepEqual(p.Ruleset, dc.Ruleset) {
		t.Errorf("%g× %s: the prediction's ruleset %+v is not the side's %+v", sz.Scale, where, p.Ruleset, dc.Ruleset)
	}
	// A figure may be missing only where the calibration has no curve for
	// it (the output's "—").
	dm, _ := m.Dataplane(dc.Dataplane)
	figures := []struct {
		name       string
		calibrated bool
		got        *cost.Estimate
	}{
		{"p50", true, &p.P50us.Total},
		{"p99", dm.P99 != nil || dm.P99Tail != nil, nil},
		{"full sync", dm.SyncFull != nil, nil},
		{"incremental sync", dm.SyncIncremental != nil, nil},
		{"kernel memory", dm.KernelMem != nil, p.KernelMemMB},
	}
	if p.P99us != nil {
		figures[1].got = &p.P99us.Total
	}
	if p.SyncFull != nil {
		figures[2].got = &p.SyncFull.Seconds
	}
	if p.SyncIncremental != nil {
		figures[3].got = &p.SyncIncremental.Seconds
	}
	for _, f := range figures {
		e := f.got
		switch {
		case e == nil && f.calibrated:
			t.Errorf("%g× %s: no %s, though the calibration has its curve", sz.Scale, where, f.name)
		case e == nil:
		case !(e.Lo <= e.Value && e.Value <= e.Hi) || e.Hi < 0:
			t.Errorf("%g× %s: %s %+v: the value is not inside its interval", sz.Scale, where, f.name, *e)
		}
	}
}

// TestCostIsEachSidesOwnRuleset: a version-only migration's two sides
// are sized by their own releases (v1.36 changed the nftables layout), and
// the report says the calibration measured another release's rules.
func TestCostIsEachSidesOwnRuleset(t *testing.T) {
	m := fixtureModel(t)
	m.Source.KubeProxyVersion = "1.37"
	r := compare(t, features(t), "nftables@1.35", "nftables@1.37", Node{})
	c, err := CostsOf(m, r.From, r.To, []Sized{{Scale: 1, Model: r.Model}})
	if err != nil {
		t.Fatal(err)
	}
	from, to := c.Sizes[0].From[0], c.Sizes[0].To[0]
	if from.Ruleset.Rules == to.Ruleset.Rules || from.Version != "1.35" || to.Version != "1.37" {
		t.Errorf("from %s@%s %d rules, to %s@%s %d rules: want each release's own", from.Dataplane, from.Version, from.Ruleset.Rules, to.Dataplane, to.Version, to.Ruleset.Rules)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "measured kube-proxy 1.37's rules, not 1.35's") {
		t.Errorf("no note on the calibration's release: %q", c.Notes)
	}
}

// TestCostInEveryFormat: the section is in the text, the Markdown and the
// JSON (as a "cost" field beside the existing ones), and absent without it.
func TestCostInEveryFormat(t *testing.T) {
	m := fixtureModel(t)
	r := compare(t, features(t), "iptables", "ipvs", Node{})
	for _, withCost := range []bool{false, true} {
		r.Cost = nil
		if withCost {
			var err error
			if r.Cost, err = CostsOf(m, r.From, r.To, []Sized{{Scale: 1, Model: r.Model}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tt := range []struct{ format, want string }{
			{"text", "Cost beside it (svclab plan's model): calibration ../cost/testdata/sweep1"},
			{"markdown", "| first packet p99 (µs) |"},
			{"json", `"cost": {`},
		} {
			var b bytes.Buffer
			if err := Write(&b, r, tt.format); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), tt.want); got != withCost {
				t.Errorf("%s with cost %v: has %q: %v", tt.format, withCost, tt.want, got)
			}
			if tt.format == "json" && withCost {
				var out struct {
					Classes []json.RawMessage
					Cost    struct {
						Sizes []struct{ From, To []DataplaneCost }
					}
				}
				if err := json.Unmarshal(b.Bytes(), &out); err != nil {
					t.Fatal(err)
				}
				if len(out.Classes) == 0 || len(out.Cost.Sizes) != 1 || out.Cost.Sizes[0].From[0].Prediction == nil || out.Cost.Sizes[0].To[0].Missing == "" {
					t.Errorf("JSON cost %+v", out.Cost)
				}
			}
		}
	}
}
