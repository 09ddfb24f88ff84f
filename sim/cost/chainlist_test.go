package cost

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/results"
)

// synthChainListWalk is a machine whose chain-list step costs 10 ns up to 16,000
// chains and 100 ns from 64,000.
var synthChainListWalk = []results.ChainListStep{{Chains: 1000, NsPerStep: 10}, {Chains: 16000, NsPerStep: 10}, {Chains: 64000, NsPerStep: 100}}

// synthPartialWalk adds the partial payload's layout, three times slower.
var synthPartialWalk = append(slices.Clone(synthChainListWalk), results.ChainListStep{Chains: 1000, NsPerStep: 30, Layout: results.ChainListPartial},
	results.ChainListStep{Chains: 64000, NsPerStep: 300, Layout: results.ChainListPartial})

// TestChainListLayouts checks that each sync is priced on its payload's
// layout, and a partial sync on the full payload's when the walk timed
// only that (meta.json before 2026-12-05).
func TestChainListLayouts(t *testing.T) {
	for _, tt := range []struct {
		name         string
		walk         []results.ChainListStep
		layout, used string
		at64k        float64
	}{
		{"full", synthPartialWalk, results.ChainListFull, results.ChainListFull, 100},
		{"partial", synthPartialWalk, results.ChainListPartial, results.ChainListPartial, 300},
		{"partial of an older walk", synthChainListWalk, results.ChainListPartial, results.ChainListFull, 100},
	} {
		p := newChainListPrice(tt.walk, tt.layout)
		if p == nil || p.Layout != tt.used || p.nsPerStep(64000) != tt.at64k {
			t.Errorf("%s: price %+v, want the %s layout's (%v ns at 64,000)", tt.name, p, tt.used, tt.at64k)
		}
	}
}

func TestChainListNsPerStep(t *testing.T) {
	p := newChainListPrice(synthChainListWalk, results.ChainListFull)
	for _, tt := range []struct {
		chains float64
		want   float64
	}{
		{10, 10},                    // below the shortest: held
		{16000, 10},                 // measured
		{32000, 10 * math.Sqrt(10)}, // halfway in log: the geometric mean
		{64000, 100},
		{1e6, 100}, // beyond the longest: held
	} {
		if got := p.nsPerStep(tt.chains); math.Abs(got-tt.want) > 1e-9*tt.want {
			t.Errorf("nsPerStep(%v) = %v, want %v", tt.chains, got, tt.want)
		}
	}
	if newChainListPrice(nil, results.ChainListFull) != nil || newChainListPrice([]results.ChainListStep{{Chains: 10}}, results.ChainListFull) != nil {
		t.Error("a price without a usable step")
	}
}

func TestChainListSeconds(t *testing.T) {
	p := newChainListPrice(synthChainListWalk, results.ChainListFull)
	w := &iptables.ChainListWork{Compares: 3e9, ByLength: []iptables.LengthSteps{
		{Max: 16384, Compares: 1e9, MeanLength: 16000}, {Max: 65536, Compares: 2e9, MeanLength: 64000}}}
	got := p.seconds(w)
	want := (1e9*10 + 2e9*100) / 1e9
	if math.Abs(got.Value-want) > 1e-9 || !got.Contains(want*(1-chainListUncertainty)) || got.Contains(want*(1+2*chainListUncertainty)) {
		t.Errorf("seconds = %+v, want %v ± %v%%", got, want, 100*chainListUncertainty)
	}
	if s := (*ChainListPrice)(nil).seconds(w); s.Value != 0 {
		t.Errorf("no price: %+v", s)
	}
}

// TestChainListSecondsSplit prices cold and warm compares apart when every
// step was timed so, and every compare at the mean step otherwise.
func TestChainListSecondsSplit(t *testing.T) {
	w := &iptables.ChainListWork{Compares: 3e9, Warm: 2e9, ByLength: []iptables.LengthSteps{
		{Max: 65536, Compares: 3e9, Warm: 2e9, MeanLength: 64000}}}
	split := []results.ChainListStep{{Chains: 1000, NsPerStep: 12, ColdNsPerStep: 30, WarmNsPerStep: 10}, {Chains: 64000, NsPerStep: 12, ColdNsPerStep: 30, WarmNsPerStep: 10}}
	for _, tt := range []struct {
		name  string
		steps []results.ChainListStep
		want  float64
	}{
		{"cold and warm", split, (1e9*30 + 2e9*10) / 1e9},
		{"a step without the split", append(slices.Clone(split), results.ChainListStep{Chains: 2000, NsPerStep: 12}), 3e9 * 12 / 1e9},
	} {
		if got := newChainListPrice(tt.steps, results.ChainListFull).seconds(w); math.Abs(got.Value-tt.want) > 1e-9 {
			t.Errorf("%s: %v s, want %v", tt.name, got.Value, tt.want)
		}
	}
}

// TestChainListSecondsRange widens the priced walk's interval to the walk
// priced at the fastest and the slowest round's steps, where every step
// has them and they lie beyond ±chainListUncertainty, and keeps
// ±chainListUncertainty otherwise.
func TestChainListSecondsRange(t *testing.T) {
	w := &iptables.ChainListWork{Compares: 2e9, ByLength: []iptables.LengthSteps{
		{Max: 16384, Compares: 1e9, MeanLength: 16000}, {Max: 65536, Compares: 1e9, MeanLength: 64000}}}
	steps := func(lo, hi float64) []results.ChainListStep {
		return []results.ChainListStep{
			{Chains: 16000, NsPerStep: 10, MinNsPerStep: 10 * lo, MaxNsPerStep: 10 * hi},
			{Chains: 64000, NsPerStep: 100, MinNsPerStep: 100 * lo, MaxNsPerStep: 100 * hi}}
	}
	const value = (1e9*10 + 1e9*100) / 1e9
	for _, tt := range []struct {
		name   string
		steps  []results.ChainListStep
		lo, hi float64
	}{
		{"rounds 4 times apart", steps(0.5, 2), value * 0.5, value * 2},
		{"rounds close together", steps(0.9, 1.1), value * (1 - chainListUncertainty), value * (1 + chainListUncertainty)},
		{"slow rounds only", steps(1, 3), value * (1 - chainListUncertainty), value * 3},
		{"a step without its rounds", append(steps(0.5, 2), results.ChainListStep{Chains: 32000, NsPerStep: 50}), value * (1 - chainListUncertainty), value * (1 + chainListUncertainty)},
		{"an older run", []results.ChainListStep{{Chains: 16000, NsPerStep: 10}, {Chains: 64000, NsPerStep: 100}}, value * (1 - chainListUncertainty), value * (1 + chainListUncertainty)},
	} {
		got := newChainListPrice(tt.steps, results.ChainListFull).seconds(w)
		if math.Abs(got.Value-value) > 1e-6 {
			t.Errorf("%s: value %v, want %v", tt.name, got.Value, value)
		}
		if math.Abs(got.Lo-tt.lo) > 1e-6 || math.Abs(got.Hi-tt.hi) > 1e-6 {
			t.Errorf("%s: [%v, %v], want [%v, %v]", tt.name, got.Lo, got.Hi, tt.lo, tt.hi)
		}
	}
}

// TestSyntheticChainListScales checks that a payload larger than the
// rendered sample scales the sample's walk within 2% of rendering it (from a
// sample of 4,000 services to 10,000; the planner's 20,000 sample is closer), for
// the full and the partial sync.
func TestSyntheticChainListScales(t *testing.T) {
	defer func(s int) { chainListSample = s }(chainListSample)
	for _, partial := range []bool{false, true} {
		chainListSample = 20_000
		rendered, err := syntheticChainList("iptables", 10000, 2, partial)
		if err != nil {
			t.Fatal(err)
		}
		chainListSample = 4000
		scaled, err := syntheticChainList("iptables", 10000, 2, partial)
		if err != nil {
			t.Fatal(err)
		}
		if e := float64(scaled.Compares)/float64(rendered.Compares) - 1; math.Abs(e) > 0.02 {
			t.Errorf("partial %v: scaled %d compares, rendered %d (%+.2f%%)", partial, scaled.Compares, rendered.Compares, 100*e)
		}
	}
	if w, err := syntheticChainList("nftables", 100, 1, false); w != nil || err != nil {
		t.Errorf("nftables: %v, %v; want none", w, err)
	}
}

// TestChainListPricedSync calibrates on syncs that are a line in rules
// plus the priced walk, and predicts 10× beyond: the line fitted to the
// rest and the walk priced at the larger payload give the known answer,
// the plan's table shows the walk, and nftables (no walk) is unpriced.
func TestChainListPricedSync(t *testing.T) {
	price, partialPrice := newChainListPrice(synthPartialWalk, results.ChainListFull), newChainListPrice(synthPartialWalk, results.ChainListPartial)
	run := synthRun()
	run.ChainListWalk = synthPartialWalk
	for i, p := range run.Points {
		if p.Dataplane != "iptables-nft" || p.Services == synthOutlierN {
			continue
		}
		w, err := syntheticChainList("iptables", p.Services, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		partial, err := syntheticChainList("iptables", p.Services, 1, true)
		if err != nil {
			t.Fatal(err)
		}
		run.Points[i].SyncFullS += price.seconds(w).Value
		run.Points[i].SyncIncrementalS += partialPrice.seconds(partial).Value
	}
	m, err := CalibrateRun(run, Options{MaxN: 20000})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := m.Predict(Query{Services: 200000, EndpointsPerService: 1, Position: PositionLast, NewConnPerSec: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range preds {
		if p.Dataplane == "nftables" {
			if p.SyncFull.ChainList != nil {
				t.Errorf("nftables' sync priced a chain list")
			}
			continue
		}
		want := synthSyncBase + synthSyncPerRul*float64(p.Ruleset.Rules) + price.seconds(p.Ruleset.ChainList).Value
		got := p.SyncFull
		if got.ChainList == nil || math.Abs(got.Seconds.Value/want-1) > 0.02 || !got.Seconds.Contains(want) {
			t.Fatalf("full sync at 200,000 = %+v (walk %+v), want %.4g", got.Seconds, got.ChainList, want)
		}
		wantIncr := synthIncrPerRul*float64(p.Ruleset.Rules) + partialPrice.seconds(p.Ruleset.PartialChainList).Value
		if incr := p.SyncIncremental; incr.ChainList == nil || math.Abs(incr.Seconds.Value/wantIncr-1) > 0.02 {
			t.Fatalf("incremental sync at 200,000 = %+v (walk %+v), want %.4g", incr.Seconds, incr.ChainList, wantIncr)
		}
		if !strings.Contains(got.Form, "chain-list walk") {
			t.Errorf("form %q does not say the walk is priced", got.Form)
		}
		if got.ChainList.Value < 0.9*got.Seconds.Value {
			t.Errorf("the walk %.3g s of %.3g: the quadratic walk should dominate at 10×", got.ChainList.Value, got.Seconds.Value)
		}
	}
	// The budget's bisection prices the walk too: the largest size within
	// a full sync of 60 s predicts about 60 s.
	b60, err := ParseBudget("sync=60s")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := m.Largest(Query{Services: 1, EndpointsPerService: 1, Position: PositionLast, NewConnPerSec: 1, Dataplane: "iptables-nft"}, b60)
	if err != nil || len(rs) != 1 {
		t.Fatalf("budget: %v, %v", rs, err)
	}
	at, err := m.Predict(Query{Services: rs[0].Services, EndpointsPerService: 1, Position: PositionLast, NewConnPerSec: 1, Dataplane: "iptables-nft"})
	if err != nil {
		t.Fatal(err)
	}
	if got := at[0].SyncFull.Seconds.Value; math.Abs(got/60-1) > 0.03 {
		t.Errorf("the budget's %d services predict a %.3g s full sync, want about 60", rs[0].Services, got)
	}
	var b strings.Builder
	if err := WritePlanText(&b, Query{Services: 200000, EndpointsPerService: 1, Position: PositionLast, NewConnPerSec: 1}, m, preds); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), chainListRowLabel) {
		t.Errorf("the plan does not show the walk:\n%s", b.String())
	}
}

func TestPointEndpoints(t *testing.T) {
	two, err := countsOf("iptables", 300, 2)
	if err != nil {
		t.Fatal(err)
	}
	nftRules, err := countsOf("nftables", 300, 2)
	if err != nil {
		t.Fatal(err)
	}
	nftLines := func(m int) int {
		st, err := renderStats("nftables", 300, m)
		if err != nil {
			t.Fatal(err)
		}
		return st.Lines
	}
	for _, tt := range []struct {
		name  string
		mode  string
		point results.Point
		want  int
	}{
		{"rules of 2 endpoints each", "iptables", results.Point{Services: 300, Rules: two.Rules}, 2},
		{"no rules recorded (the kube-proxy engine)", "iptables", results.Point{Services: 300}, 1},
		{"rules of no synthetic payload", "iptables", results.Point{Services: 300, Rules: 7}, 1},
		{"nftables' rules and lines of 2 endpoints each", "nftables", results.Point{Services: 300, Rules: nftRules.Rules, Lines: nftLines(2)}, 2},
		{"nftables' rules and lines of 3 endpoints each, a few lines off", "nftables", results.Point{Services: 300, Rules: nftRules.Rules, Lines: nftLines(3) - 4}, 3},
		{"nftables' rules and lines of 1 endpoint each", "nftables", results.Point{Services: 300, Rules: nftRules.Rules, Lines: nftLines(1)}, 1},
		{"nftables' rules without lines", "nftables", results.Point{Services: 300, Rules: nftRules.Rules}, 1},
	} {
		if got := pointEndpoints(tt.mode, tt.point); got != tt.want {
			t.Errorf("%s: %d endpoints, want %d", tt.name, got, tt.want)
		}
	}
}
