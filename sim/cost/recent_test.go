package cost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// recentPoint is a recent probe's median (tables > 0) or its walk
// probe's: p50 µs, its standard deviation over reps repetitions.
func recentPoint(dataplane, position string, p50, sd float64, reps, tables, rules int) results.Point {
	p := results.Point{Dataplane: dataplane, Services: 2500, Position: position, P50us: p50, Repetitions: reps,
		Extra: map[string]float64{results.ExtraP50SD: sd}}
	if tables > 0 {
		p.Extra[results.ExtraRecentTables], p.Extra[results.ExtraRecentRules] = float64(tables), float64(rules)
	}
	return p
}

// TestRecentCost: a step costs the recent probe's p50 over the walk
// probe's, per rule less a plain rule, over the lists each rule passes
// (its own included), averaged over the positions; none without a pair.
func TestRecentCost(t *testing.T) {
	const plain = 0.005
	walks := []results.Point{recentPoint("iptables-legacy", PositionLast, 30, 2, 4, 0, 0), recentPoint("iptables-legacy", PositionUniform, 20, 2, 4, 0, 0)}
	tests := []struct {
		name      string
		probes    []results.Point
		dataplane string
		want      float64 // µs a step; < 0: no cost
	}{
		{"last", []results.Point{recentPoint("iptables-legacy", PositionLast, 830, 20, 4, 7999, 4)}, "iptables-legacy", (800.0/4 - plain) / 8000},
		{"both positions", []results.Point{recentPoint("iptables-legacy", PositionLast, 830, 20, 4, 7999, 4),
			recentPoint("iptables-legacy", PositionUniform, 1020, 20, 4, 7999, 4)}, "iptables-legacy", (900.0/4 - plain) / 8000},
		{"another dataplane's", []results.Point{recentPoint("iptables-legacy", PositionLast, 830, 20, 4, 7999, 4)}, "iptables-nft", -1},
		{"no lists recorded", []results.Point{recentPoint("iptables-legacy", PositionLast, 830, 20, 4, 0, 0)}, "iptables-legacy", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := recentCost(tt.probes, walks, tt.dataplane, plain)
			if tt.want < 0 {
				if c != nil {
					t.Fatalf("cost %+v, want none", *c)
				}
				return
			}
			if c == nil {
				t.Fatal("no cost")
			}
			e := c.PerStepUs
			if !near(e.Value, tt.want, 1e-12) || c.Lists != 8000 || c.Rules != 4 {
				t.Errorf("%v µs a step over %d lists and %d rules, want %v over 8000 and 4", e.Value, c.Lists, c.Rules, tt.want)
			}
			if e.NoInterval || !(e.Lo < e.Value && e.Value < e.Hi) {
				t.Errorf("interval %+v does not bracket its value", e)
			}
		})
	}
}

// recentPayload has one Service port's chains checking two lists in the
// payload in an order opposite to their chains' names.
const recentPayload = `*nat
:KUBE-SVC-X - [0:0]
:KUBE-SEP-ZZ - [0:0]
:KUBE-SEP-AA - [0:0]
-A KUBE-SVC-X -m recent --name KUBE-SEP-ZZ --rcheck --seconds 10800 --reap -j KUBE-SEP-ZZ
-A KUBE-SVC-X -m recent --name KUBE-SEP-AA --rcheck --seconds 10800 --reap -j KUBE-SEP-AA
-A KUBE-SEP-ZZ -m recent --name KUBE-SEP-ZZ --set
-A KUBE-SEP-AA -m recent --name KUBE-SEP-AA --set
COMMIT
`

// TestRecentPlaces: libiptc's restore checks user chains sorted by name
// (KUBE-SEP-AA's rule before KUBE-SEP-ZZ's, and both before KUBE-SVC-X's),
// iptables-nft's rules as the payload adds them (KUBE-SVC-X's first).
func TestRecentPlaces(t *testing.T) {
	tests := []struct {
		sorted bool
		want   map[string]int
	}{
		{true, map[string]int{"KUBE-SEP-AA": 1, "KUBE-SEP-ZZ": 2}},
		{false, map[string]int{"KUBE-SEP-ZZ": 1, "KUBE-SEP-AA": 2}},
	}
	for _, tt := range tests {
		if got := recentPlaces([]byte(recentPayload), tt.sorted); len(got) != len(tt.want) || got["KUBE-SEP-AA"] != tt.want["KUBE-SEP-AA"] || got["KUBE-SEP-ZZ"] != tt.want["KUBE-SEP-ZZ"] {
			t.Errorf("sorted %t: places %v, want %v", tt.sorted, got, tt.want)
		}
	}
}

// TestRecentWalkOfAffinity: when every Service has ClientIP affinity over
// k endpoints, traced first packets look up each Service's k lists and set
// one: whatever the order of the T lists, their places are 1..T, so the
// mean over Services is (T+1)/2 × (k+1) steps; the tail band brackets the
// p99, which is at least the median.
func TestRecentWalkOfAffinity(t *testing.T) {
	const services, k = 60, 3
	mix := &model.Mix{Types: []model.Weighted[model.ServiceType]{{Value: model.ClusterIP, Weight: 1}},
		Endpoints: []model.Weighted[int]{{Value: k, Weight: 1}}, Ports: []model.Weighted[int]{{Value: 1, Weight: 1}}, Affinity: 1}
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: services, Seed: 5, Mix: mix})
	if err != nil {
		t.Fatal(err)
	}
	m := model.ForFamily(model.Model{Cluster: model.DefaultCluster(), Services: gen}, model.IPv4)
	c, err := CompositionOf("affinity", 1, &m)
	if err != nil {
		t.Fatal(err)
	}
	if c.Walk == nil || len(c.Walk.Recent) != 2 {
		t.Fatalf("traced walk %+v: want recent walks for the two iptables dataplanes", c.Walk)
	}
	for name, w := range c.Walk.Recent {
		lists := m.Services.Len() * k
		want := float64(lists+1) / 2 * (k + 1)
		if w.Lists != lists || w.Services != m.Services.Len() || !near(w.Mean, want, 1e-9) {
			t.Errorf("%s: %d lists over %d Services, mean %v steps; want %d, %d, %v", name, w.Lists, w.Services, w.Mean, lists, m.Services.Len(), want)
		}
		if !(w.P99Lo <= w.P99 && w.P99 <= w.P99Hi && w.Median <= w.P99) {
			t.Errorf("%s: median %v, p99 %v [%v, %v]: want median ≤ p99 within its band", name, w.Median, w.P99, w.P99Lo, w.P99Hi)
		}
	}
	scaled := c.Walk.scaled(3)
	if r := scaled.Recent["iptables-legacy"]; !near(r.Mean, 3*c.Walk.Recent["iptables-legacy"].Mean, 1e-9) || r.Lists != 3*c.Walk.Recent["iptables-legacy"].Lists {
		t.Errorf("scaled 3×: %+v, want 3 times the lists and steps of %+v", *r, *c.Walk.Recent["iptables-legacy"])
	}
}

// TestRecentWalkOfNoAffinity: without affinity a traced walk has no
// recent walks, and plan neither prices nor warns.
func TestRecentWalkOfNoAffinity(t *testing.T) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 40, EndpointsPerService: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := CompositionOf("plain", 1, &model.Model{Cluster: model.DefaultCluster(), Services: gen})
	if err != nil {
		t.Fatal(err)
	}
	if c.Walk == nil || c.Walk.Recent != nil {
		t.Fatalf("traced walk %+v: want one without recent walks", c.Walk)
	}
}

// TestPredictPricesRecentSteps: a calibrated step prices the position's
// steps into the p50 and the slowest 1%'s into the uniform p99; without
// one plan warns once the tail reaches RecentStepsWarnAt steps.
func TestPredictPricesRecentSteps(t *testing.T) {
	rw := &RecentWalk{Lists: 8000, Services: 6000, First: 9000, Median: 0, Mean: 2000, Last: 40000, P99: 50000, P99Lo: 30000, P99Hi: 150000}
	walk := &TracedWalk{First: 10, Mean: 3000, Last: 6000, Offset: 4, Traced: 400, Recent: map[string]*RecentWalk{"iptables-nft": rw}}
	perStep := Estimate{Value: 0.027, Lo: 0.02, Hi: 0.03}
	for _, pos := range []string{PositionFirst, PositionUniform, PositionLast} {
		for _, calibrated := range []bool{true, false} {
			t.Run(pos+map[bool]string{true: ", calibrated", false: ", not calibrated"}[calibrated], func(t *testing.T) {
				m := synthModel(t, Options{})
				dm, _ := m.Dataplane("iptables-nft")
				if calibrated {
					dm.Recent = &RecentCost{Services: 2500, Lists: 8000, Rules: 4, Positions: []string{PositionLast}, PerStepUs: perStep, Repetitions: 4}
				}
				q := Query{Dataplane: "iptables-nft", Position: pos, Composition: &Composition{Services: 6000, ServiceRules: 6000, Walk: walk,
					Modes: map[string]Size{"iptables": {Mode: "iptables", Rules: 30000, Chains: 12000, Bytes: 3 << 20, BytesExact: true}}}}
				without := *q.Composition
				without.Walk = &TracedWalk{First: walk.First, Mean: walk.Mean, Last: walk.Last, Offset: walk.Offset, Traced: walk.Traced}
				plain := predictOf(t, m, Query{Dataplane: q.Dataplane, Position: pos, Composition: &without})
				got := predictOf(t, m, q)
				steps := rw.steps(pos)
				added := got.P50us.Total.Value - plain.P50us.Total.Value
				tail := got.P99us.Total.Value - plain.P99us.Total.Value
				warned := strings.Contains(strings.Join(got.Warnings, "\n"), "xt_recent's list")
				if got.RecentSteps != steps {
					t.Errorf("%v steps, want %v", got.RecentSteps, steps)
				}
				if !calibrated {
					if added != 0 || tail != 0 || got.RecentUs != nil || !warned {
						t.Errorf("uncalibrated: p50 +%v µs, p99 +%v, surcharge %v, warned %t; want none, none, none, a warning", added, tail, got.RecentUs, warned)
					}
					return
				}
				if !near(added, steps*perStep.Value, 1e-9) || warned || (steps > 0) != (got.RecentUs != nil) {
					t.Errorf("p50 +%v µs (surcharge %v, warned %t), want %v", added, got.RecentUs, warned, steps*perStep.Value)
				}
				wantTail := steps * perStep.Value
				if pos == PositionUniform {
					wantTail = rw.P99 * perStep.Value
				}
				if !near(tail, wantTail, 1e-9) {
					t.Errorf("p99 +%v µs, want %v", tail, wantTail)
				}
				if pos == PositionUniform && !(got.P99us.Total.Hi-plain.P99us.Total.Hi >= rw.P99Hi*perStep.Hi-1e-9) {
					t.Errorf("uniform p99's upper end +%v µs, want at least the band's %v", got.P99us.Total.Hi-plain.P99us.Total.Hi, rw.P99Hi*perStep.Hi)
				}
			})
		}
	}
}

// TestRecentWalkSkipsSmallTails: a tail under RecentStepsWarnAt steps,
// uncalibrated, is not worth a warning.
func TestRecentWalkSkipsSmallTails(t *testing.T) {
	dm := &DataplaneModel{Dataplane: "iptables-legacy", Lookup: LinearWalk}
	w := &TracedWalk{Recent: map[string]*RecentWalk{"iptables-legacy": {Lists: 2, Services: 5, Last: 4, P99: 4, P99Lo: 4, P99Hi: 4}}}
	if _, steps, warning := dm.recentSurcharge(w, PositionLast); steps != 4 || warning != "" {
		t.Errorf("steps %v, warning %q; want 4 and none", steps, warning)
	}
}

// TestRecentSyncSteps: loading into empty tables, a rule whose list exists
// walks to its place, another walks all the lists and appends its own;
// iptables-legacy checks the chains sorted by name (KUBE-SEP-AA's rule,
// KUBE-SEP-ZZ's, then KUBE-SVC-X's two: 0 + 1 + 2 + 1 steps), iptables-nft
// in payload order (0 + 1 + 1 + 2); iptables-legacy's reload checks every
// rule again and destroys the old one, twice each place (2 × (2+1+2+1)),
// iptables-nft's replaces the changed chains alone (not priced). Loaded
// after another family's 10 lists, each of the 4 rules walks past them
// first: 40 steps more to load, 80 more to reload.
func TestRecentSyncSteps(t *testing.T) {
	for _, tt := range []struct {
		before int
		want   map[string]RecentSyncSteps
	}{
		{0, map[string]RecentSyncSteps{"iptables-legacy": {Full: 4, Incremental: 12}, "iptables-nft": {Full: 4}}},
		{10, map[string]RecentSyncSteps{"iptables-legacy": {Full: 44, Incremental: 92}, "iptables-nft": {Full: 44}}},
	} {
		got := payloadRecentSync("iptables", []byte(recentPayload), tt.before)
		if len(got) != len(tt.want) || got["iptables-legacy"] != tt.want["iptables-legacy"] || got["iptables-nft"] != tt.want["iptables-nft"] {
			t.Errorf("after %d lists: steps %+v, want %+v", tt.before, got, tt.want)
		}
	}
	want := map[string]RecentSyncSteps{"iptables-legacy": {Full: 4, Incremental: 12}, "iptables-nft": {Full: 4}}
	if got := payloadRecentSync("iptables", []byte("*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -j RETURN\nCOMMIT\n"), 0); got != nil {
		t.Errorf("steps without recent rules: %+v, want none", got)
	}
	if got := payloadRecentSync("nftables", []byte(recentPayload), 0); got != nil {
		t.Errorf("steps of an nftables payload: %+v, want none", got)
	}
	scaled := scaledRecentSync(want, 3)
	if scaled["iptables-legacy"] != (RecentSyncSteps{Full: 36, Incremental: 108}) {
		t.Errorf("3× the services: %+v, want 9× the steps", scaled)
	}
}

// TestLoadStepsOfManyLists: T lists each named by two rules in a row take
// T(T−1)/2 steps to create and T(T+1)/2 to find again: T² in all.
func TestLoadStepsOfManyLists(t *testing.T) {
	for _, lists := range []int{1, 10, 1000} {
		var rules []recentRule
		for i := range lists {
			name := fmt.Sprintf("KUBE-SEP-%06d", i)
			rules = append(rules, recentRule{chain: name, list: name}, recentRule{chain: name, list: name})
		}
		steps, places := loadSteps(rules)
		if steps != float64(lists*lists) || len(places) != lists || places["KUBE-SEP-000000"] != 1 {
			t.Errorf("%d lists: %v steps, %d places (the first at %d); want %d, %d, 1", lists, steps, len(places), places["KUBE-SEP-000000"], lists*lists, lists)
		}
	}
}

// TestPredictPricesRecentSyncs: a calibrated step prices the syncs' steps
// (seconds = steps × µs / 10⁶) and shows them apart; none without one.
func TestPredictPricesRecentSyncs(t *testing.T) {
	steps := RecentSyncSteps{Full: 5e7, Incremental: 1e8}
	perStep := Estimate{Value: 0.03, Lo: 0.02, Hi: 0.04}
	for _, calibrated := range []bool{true, false} {
		m := synthModel(t, Options{})
		dm, _ := m.Dataplane("iptables-nft")
		if calibrated {
			dm.Recent = &RecentCost{Services: 2500, Lists: 8000, Rules: 4, PerStepUs: perStep, Repetitions: 4}
		}
		size := Size{Mode: "iptables", Rules: 30000, Chains: 12000, Bytes: 3 << 20, BytesExact: true}
		plain := predictOf(t, m, Query{Dataplane: "iptables-nft", Position: PositionLast, Composition: &Composition{Services: 6000, ServiceRules: 6000, Modes: map[string]Size{"iptables": size}}})
		size.RecentSync = map[string]RecentSyncSteps{"iptables-nft": steps}
		got := predictOf(t, m, Query{Dataplane: "iptables-nft", Position: PositionLast, Composition: &Composition{Services: 6000, ServiceRules: 6000, Modes: map[string]Size{"iptables": size}}})
		if got.SyncFull == nil || got.SyncIncremental == nil {
			t.Fatal("no syncs predicted")
		}
		full := got.SyncFull.Seconds.Value - plain.SyncFull.Seconds.Value
		incr := got.SyncIncremental.Seconds.Value - plain.SyncIncremental.Seconds.Value
		if !calibrated {
			if full != 0 || incr != 0 || got.SyncFull.RecentLists != nil {
				t.Errorf("uncalibrated: full +%v s, incremental +%v, walks %v; want none", full, incr, got.SyncFull.RecentLists)
			}
			continue
		}
		if !near(full, 1.5, 1e-9) || !near(incr, 3, 1e-9) || got.SyncFull.RecentLists == nil || !strings.Contains(got.SyncIncremental.Form, "xt_recent") {
			t.Errorf("full +%v s, incremental +%v (%s); want +1.5 and +3 shown apart", full, incr, got.SyncIncremental.Form)
		}
	}
}

// TestPredictPricesMatchCPU: the CPU per connection adds the walk's
// addrtype matches and, spread uniformly, the mean Service's xt_recent
// steps (the last Service's at the last position).
func TestPredictPricesMatchCPU(t *testing.T) {
	rw := &RecentWalk{Lists: 8000, Services: 6000, Median: 0, Mean: 2000, Last: 40000, P99: 50000, P99Lo: 30000, P99Hi: 150000}
	walk := &TracedWalk{First: 10, Mean: 3000, Last: 6000, Offset: 4, Traced: 400, AddrTypeMean: 300, AddrTypeLast: 500, Recent: map[string]*RecentWalk{"iptables-nft": rw}}
	perStep, perMatch := Estimate{Value: 0.027, Lo: 0.02, Hi: 0.03}, Estimate{Value: 0.07, Lo: 0.05, Hi: 0.09}
	tests := []struct {
		position string
		want     float64
	}{
		{PositionUniform, 300*perMatch.Value + 2000*perStep.Value},
		{PositionLast, 500*perMatch.Value + 40000*perStep.Value},
	}
	for _, tt := range tests {
		m := synthModel(t, Options{})
		dm, _ := m.Dataplane("iptables-nft")
		dm.Recent = &RecentCost{Services: 2500, Lists: 8000, Rules: 4, PerStepUs: perStep, Repetitions: 4}
		dm.AddrType = &AddrTypeCost{Services: 2500, Rules: 2500, PerMatchUs: perMatch, Repetitions: 4}
		modes := map[string]Size{"iptables": {Mode: "iptables", Rules: 30000, Chains: 12000, Bytes: 3 << 20, BytesExact: true}}
		got := predictOf(t, m, Query{Dataplane: "iptables-nft", Position: tt.position, Composition: &Composition{Services: 6000, ServiceRules: 6000, Walk: walk, Modes: modes}})
		plainWalk := &TracedWalk{First: walk.First, Mean: walk.Mean, Last: walk.Last, Offset: walk.Offset, Traced: walk.Traced}
		plain := predictOf(t, m, Query{Dataplane: "iptables-nft", Position: tt.position, Composition: &Composition{Services: 6000, ServiceRules: 6000, Walk: plainWalk, Modes: modes}})
		if got.CPUusPerConn == nil || !near(got.CPUusPerConn.Added.Value-plain.CPUusPerConn.Added.Value, tt.want, 1e-9) {
			t.Errorf("%s: CPU per connection %+v against %+v, want %v µs more", tt.position, got.CPUusPerConn, plain.CPUusPerConn, tt.want)
		}
	}
}

// TestRecentStepBeyondTheProbe: a payload with more lists than the probe
// timed a step over is priced at that step, with a warning.
func TestRecentStepBeyondTheProbe(t *testing.T) {
	dm := &DataplaneModel{Dataplane: "iptables-legacy", Lookup: LinearWalk,
		Recent: &RecentCost{Lists: 8001, Rules: 4, PerStepUs: Estimate{Value: 0.03, Lo: 0.02, Hi: 0.04}, Repetitions: 2}}
	for _, tt := range []struct {
		lists int
		warn  string
	}{{8001, ""}, {80010, "10.0× the 8001"}} {
		w := &TracedWalk{Recent: map[string]*RecentWalk{"iptables-legacy": {Lists: tt.lists, Services: 5, Last: 1000, P99: 1000, P99Lo: 1000, P99Hi: 1000}}}
		s, steps, warning := dm.recentSurcharge(w, PositionLast)
		if steps != 1000 || !near(s.Value, 30, 1e-9) || (tt.warn == "") != (warning == "") || !strings.Contains(warning, tt.warn) {
			t.Errorf("%d lists: %v µs for %v steps, warning %q; want 30 for 1000 and a warning saying %q", tt.lists, s.Value, steps, warning, tt.warn)
		}
	}
}

// TestPredictCountsRecentListsMemory: each xt_recent list adds
// Machine.RecentListBytes of kernel memory the calibration's Services,
// which have none, do not show: 4 KiB with xt_recent's default buckets
// (and a calibration that did not read them), more with more.
func TestPredictCountsRecentListsMemory(t *testing.T) {
	for _, tt := range []struct {
		buckets int
		wantMB  float64
	}{{0, 40.96}, {128, 40.96}, {1024, 327.68}} {
		m := synthModel(t, Options{})
		m.Source.Machine.RecentHashBuckets = tt.buckets
		dm, _ := m.Dataplane("iptables-nft")
		dm.KernelMem = &MemLine{Line: stats.Fit{Slope: 0.001, N: 10}, MaxRules: 50000}
		size := Size{Mode: "iptables", Rules: 30000, Chains: 12000, Bytes: 3 << 20, BytesExact: true}
		query := func(s Size) Query {
			return Query{Dataplane: "iptables-nft", Position: PositionLast, Composition: &Composition{Services: 6000, ServiceRules: 6000, Modes: map[string]Size{"iptables": s}}}
		}
		plain := predictOf(t, m, query(size))
		size.RecentTables = 10000
		got := predictOf(t, m, query(size))
		if plain.KernelMemMB == nil || got.KernelMemMB == nil {
			t.Fatal("no kernel memory predicted")
		}
		if added := got.KernelMemMB.Value - plain.KernelMemMB.Value; !near(added, tt.wantMB, 1e-9) || !near(got.RecentListsMB, added, 1e-9) || plain.RecentListsMB != 0 {
			t.Errorf("%d buckets: 10,000 lists add %v MB (recorded %v, %v without); want %v", tt.buckets, added, got.RecentListsMB, plain.RecentListsMB, tt.wantMB)
		}
	}
}
