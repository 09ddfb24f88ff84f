package cost

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

func TestChainDumpSteps(t *testing.T) {
	for _, tt := range []struct {
		chains     int
		perMessage float64
		want       float64
	}{
		{0, 300, 0},
		{10, 0, 0},
		{200, 300, 200},                       // one message, then one walk to find none left
		{600, 300, 300 + 600},                 // the second message passes the first's 300
		{50_000, 300, 300*167*166/2 + 50_000}, // 167 messages
	} {
		if got := ChainDumpSteps(tt.chains, tt.perMessage); got != tt.want {
			t.Errorf("ChainDumpSteps(%d, %g) = %g, want %g", tt.chains, tt.perMessage, got, tt.want)
		}
	}
}

// synthDumpWalk is a dump walk as lab/labfake's: 10 ns a step packed
// (8-12 over the rounds), 40 to 100 ns spread (up to 120).
var synthDumpWalk = []results.ChainListStep{
	{Chains: 12_500, Layout: results.ChainDumpPacked, NsPerStep: 10, MinNsPerStep: 8, MaxNsPerStep: 12, ChainsPerMessage: 300},
	{Chains: 50_000, Layout: results.ChainDumpPacked, NsPerStep: 10, MinNsPerStep: 8, MaxNsPerStep: 12, ChainsPerMessage: 300},
	{Chains: 12_500, Layout: results.ChainDumpSpread, NsPerStep: 40, MinNsPerStep: 32, MaxNsPerStep: 48, ChainsPerMessage: 300},
	{Chains: 50_000, Layout: results.ChainDumpSpread, NsPerStep: 100, MinNsPerStep: 80, MaxNsPerStep: 120, ChainsPerMessage: 300},
}

func TestChainDumpPrice(t *testing.T) {
	p := newChainDumpPrice(synthDumpWalk)
	if p == nil || len(p.Packed) != 2 || len(p.Spread) != 2 {
		t.Fatalf("price %+v: want both layouts", p)
	}
	steps := ChainDumpSteps(50_000, 300)
	got := p.seconds(50_000)
	want := Estimate{Value: steps * 10e-9, Lo: steps * 8e-9, Hi: steps * 120e-9}
	for _, v := range [][2]float64{{got.Value, want.Value}, {got.Lo, want.Lo}, {got.Hi, want.Hi}} {
		if math.Abs(v[0]/v[1]-1) > 1e-9 {
			t.Fatalf("50,000 chains priced %+v, want %+v", got, want)
		}
	}
	if !p.beyond(50_001) || p.beyond(50_000) {
		t.Errorf("beyond: want only past 50,000 chains")
	}
	for name, walk := range map[string][]results.ChainListStep{
		"none":                     nil,
		"spread only":              synthDumpWalk[2:],
		"no chains a message":      {{Chains: 100, Layout: results.ChainDumpPacked, NsPerStep: 10, MinNsPerStep: 8, MaxNsPerStep: 12}},
		"iptables-nft's list only": {{Chains: 100, Layout: results.ChainListFull, NsPerStep: 10, MinNsPerStep: 8, MaxNsPerStep: 12, ChainsPerMessage: 300}},
	} {
		if p := newChainDumpPrice(walk); p != nil {
			t.Errorf("%s: priced %+v, want nil", name, p)
		}
	}
	packedOnly := newChainDumpPrice(synthDumpWalk[:2])
	if packedOnly == nil || math.Abs(packedOnly.seconds(50_000).Hi/(steps*12e-9)-1) > 1e-9 {
		t.Errorf("packed only: %+v, want the packed slowest round as the upper end", packedOnly)
	}
}

// TestChainDumpPricedSync calibrates nftables on incremental syncs that
// are a line in rules plus the priced dump walk, and predicts 10× beyond:
// the line fitted to the rest and the walk priced at the larger ruleset
// give the known answer, the interval reaches the spread walk, and the
// plan's table shows it.
func TestChainDumpPricedSync(t *testing.T) {
	price := newChainDumpPrice(synthDumpWalk)
	run := synthRun()
	run.ChainDumpWalk = synthDumpWalk
	for i, p := range run.Points {
		if p.Dataplane != "nftables" || p.Services == synthOutlierN {
			continue
		}
		chains, err := pointChains("nftables", p)
		if err != nil {
			t.Fatal(err)
		}
		run.Points[i].SyncIncrementalS += price.seconds(chains).Value
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
		incr := p.SyncIncremental
		if p.Dataplane != "nftables" {
			if incr != nil && incr.ChainDump != nil {
				t.Errorf("%s's incremental sync priced a chain dump", p.Dataplane)
			}
			continue
		}
		dump := price.seconds(p.Ruleset.Chains)
		want := synthIncrPerRul*float64(p.Ruleset.Rules) + dump.Value
		if incr.ChainDump == nil || math.Abs(incr.Seconds.Value/want-1) > 0.02 || incr.Seconds.Hi < dump.Hi {
			t.Fatalf("incremental sync at 200,000 = %+v (dump %+v), want %.4g, its interval up to the spread walk %.4g", incr.Seconds, incr.ChainDump, want, dump.Hi)
		}
		if !strings.Contains(incr.Form, "chain-dump walk") || p.SyncFull.ChainDump != nil {
			t.Errorf("form %q (full sync's dump %v): want the incremental sync alone priced", incr.Form, p.SyncFull.ChainDump)
		}
		beyond := func(w string) bool {
			return strings.HasPrefix(w, "nftables "+MetricSyncIncremental+": nft's chain dump walks")
		}
		if !slices.ContainsFunc(p.Warnings, beyond) {
			t.Errorf("no warning that 200,000 Services' chains are beyond the walk timed: %v", p.Warnings)
		}
	}
	var b strings.Builder
	if err := WritePlanText(&b, Query{Services: 200000, EndpointsPerService: 1, Position: PositionLast, NewConnPerSec: 1}, m, preds); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), chainDumpRowLabel) {
		t.Errorf("the plan does not show the dump walk:\n%s", b.String())
	}
}

// TestUnpricedDumpWarns: nftables' incremental sync predicted past the
// calibration without a timed dump walk says it leaves the walk out;
// priced, or within the calibration, it does not.
func TestUnpricedDumpWarns(t *testing.T) {
	tests := []struct {
		name     string
		walk     []results.ChainListStep
		services int
		want     bool
	}{
		{"no walk timed, 10× beyond", nil, 200000, true},
		{"no walk timed, within", nil, 10000, false},
		{"walk timed, 10× beyond", synthDumpWalk, 200000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := synthRun()
			run.ChainDumpWalk = tt.walk
			m, err := CalibrateRun(run, Options{MaxN: 20000})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := m.Predict(Query{Services: tt.services, EndpointsPerService: 1, Dataplane: "nftables", Position: PositionLast})
			if err != nil {
				t.Fatal(err)
			}
			warned := slices.ContainsFunc(preds[0].Warnings, func(w string) bool { return strings.Contains(w, "without the kernel's chain dump walk") })
			if warned != tt.want {
				t.Errorf("warned %v, want %v: %v", warned, tt.want, preds[0].Warnings)
			}
		})
	}
}
