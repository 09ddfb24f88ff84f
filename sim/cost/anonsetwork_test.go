package cost

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
)

// TestSyntheticAnonymousSetWork checks the work grown from one to three
// services against the work counted in the rendered payload.
func TestSyntheticAnonymousSetWork(t *testing.T) {
	for _, tc := range []struct{ services, endpoints int }{
		{1, 2}, {4, 2}, {37, 2}, {500, 3}, {200, 1}, {300, 0},
	} {
		var b bytes.Buffer
		if _, err := renderTo(&b, "nftables", tc.services, tc.endpoints); err != nil {
			t.Fatal(err)
		}
		want := payloadAnonymousSetWork(dataplane.ModeNFTables, b.Bytes())
		got, err := syntheticAnonymousSetWork("nftables", tc.services, tc.endpoints)
		if err != nil {
			t.Fatal(err)
		}
		if got.Sets != want.Sets || got.AllSets != want.AllSets || got.AnonymousSets != want.AnonymousSets || math.Abs(got.NameSteps-want.NameSteps) > 0.5 ||
			math.Abs(got.NameStepLengths/want.NameStepLengths-1) > 1e-9 || math.Abs(got.NameStepEntries/want.NameStepEntries-1) > 1e-9 || math.Abs(got.BindSteps-want.BindSteps) > 0.5 {
			t.Errorf("%d services × %d endpoints: grown %+v, counted %+v", tc.services, tc.endpoints, got, want)
		}
	}
}

// TestPayloadAnonymousSetWork counts a small script's walks by hand: an
// anonymous set walks its table's whole set list (named sets too) and the
// commit list before it (an anonymous set adds two entries, a flush none);
// a named set walks the list a fifth as much, once when made and up to
// itself when named; a set of one element is no set (nft makes it a
// comparison), a map of one is.
func TestPayloadAnonymousSetWork(t *testing.T) {
	script := []byte(`add table ip t
add chain ip t c
flush chain ip t c
add set ip t s { type ipv4_addr ; }
add element ip t s { 10.0.0.9 }
add rule ip t c ip daddr { 10.0.0.1, 10.0.0.3 } drop
# a comment
add rule ip t c ip daddr { 10.0.0.4 } drop
add rule ip t c ip saddr @s numgen random mod 1 vmap { 0 : drop }
add table ip u
add rule ip u c ip saddr { 10.0.0.2, 10.0.0.5 } accept
`)
	got := payloadAnonymousSetWork(dataplane.ModeNFTables, script)
	// Set-list walks: s made on an empty list (0), s's element finds it
	// (1 × 1/5), the first anonymous set passes s (1), the vmap's rule
	// finds s (1/5) and the vmap passes s and the first set (2), u's set
	// an empty list; their lengths: 1 × 1/5, 1, 1/5, 2 × 2. Commit-list
	// entries before each anonymous set: 4 (the flush adds none), 4+3
	// (the first set and its rule) + 1 (the one-element set's rule), and
	// 8+3+1.
	// Steps times the entries before them: 1/5 × 3, 1 × 4, 1/5 × 8, 2 × 8.
	want := AnonymousSetWork{Sets: 3, AllSets: 4, AnonymousSets: 3, NameSteps: 3.4, NameStepLengths: 5.4, NameStepEntries: 22.2, BindSteps: 4 + 8 + 12}
	if got.Sets != want.Sets || got.AllSets != want.AllSets || got.AnonymousSets != want.AnonymousSets || got.BindSteps != want.BindSteps ||
		math.Abs(got.NameSteps-want.NameSteps) > 1e-9 || math.Abs(got.NameStepLengths-want.NameStepLengths) > 1e-9 || math.Abs(got.NameStepEntries-want.NameStepEntries) > 1e-9 {
		t.Errorf("work %+v, want %+v", got, want)
	}
	if w := payloadAnonymousSetWork(dataplane.ModeIPTables, script); w != (AnonymousSetWork{}) {
		t.Errorf("iptables mode: %+v, want none", w)
	}
}

// synthSetWalk is a machine's anonymous-set walks: naming steps of 90 ns
// at 1,000 sets and 110 at 4,000; binding steps of 10 ns at 30,000
// entries and 40 at 240,000; 10 µs a set listed; ±10% over rounds.
var synthSetWalk = []results.AnonymousSetStep{
	{Walk: results.AnonymousSetNaming, Services: 1000, Length: 1000, NsPerStep: 90, MinNsPerStep: 81, MaxNsPerStep: 99, Rounds: 2},
	{Walk: results.AnonymousSetNaming, Services: 4000, Length: 4000, NsPerStep: 110, MinNsPerStep: 99, MaxNsPerStep: 121, Rounds: 2},
	{Walk: results.AnonymousSetBinding, Services: 5000, Length: 30000, NsPerStep: 10, MinNsPerStep: 9, MaxNsPerStep: 11, Rounds: 2},
	{Walk: results.AnonymousSetBinding, Services: 40000, Length: 240000, NsPerStep: 40, MinNsPerStep: 36, MaxNsPerStep: 44, Rounds: 2},
	{Walk: results.AnonymousSetListing, Services: 1000, Length: 1000, NsPerStep: 10000, MinNsPerStep: 9000, MaxNsPerStep: 11000, Rounds: 2},
}

func TestAnonymousSetPrice(t *testing.T) {
	p := newAnonymousSetPrice(synthSetWalk)
	if p == nil {
		t.Fatal("no price from complete steps")
	}
	// 2,000 sets whose binding walks pass 60,000 entries each on average.
	w := &AnonymousSetWork{Sets: 2000, AnonymousSets: 2000, NameSteps: 2e6, NameStepLengths: 2e6 * 2000, NameStepEntries: 2e6 * 60000, BindSteps: 2000 * 60000}
	name := 90 * math.Pow(110.0/90, math.Log(2000.0/1000)/math.Log(4000.0/1000))
	bind := 10 * math.Pow(40.0/10, math.Log(60000.0/30000)/math.Log(240000.0/30000))
	got := p.seconds(w)
	// The set-list steps are priced cold (the lower end warm): as much
	// dearer as the binding step is at 60,000 entries (the transaction a
	// step follows) than at 30,000.
	cold := bind / 10
	want, wantLo, wantHi := (2e6*name*cold+1.2e8*bind)/1e9, (2e6*name+1.2e8*bind)*0.9/1e9, (2e6*name*cold+1.2e8*bind)*1.1/1e9
	if math.Abs(got.Value/want-1) > 1e-9 || math.Abs(got.Lo/wantLo-1) > 1e-9 || math.Abs(got.Hi/wantHi-1) > 1e-9 {
		t.Errorf("2,000 sets: %+v, want %.4g s, from %.4g (warm, fastest rounds) to %.4g", got, want, wantLo, wantHi)
	}
	if w := p.pricingWarnings("nftables", MetricSyncFull, w); len(w) != 1 || !strings.Contains(w[0], "empty the caches") {
		t.Errorf("within the timed lengths: warnings %q, want the cold one alone", w)
	}
	long := &AnonymousSetWork{Sets: 5000, AnonymousSets: 5000, NameSteps: 1.25e7, NameStepLengths: 1.25e7 * 5000, NameStepEntries: 1.25e7 * 300000, BindSteps: 5000 * 300000}
	if w := p.pricingWarnings("nftables", MetricSyncFull, long); len(w) != 3 {
		t.Errorf("5,000 sets walking 300,000 entries: warnings %q, want naming's, binding's and the cold one", w)
	}
	if got, want := p.seconds(long).Value, (1.25e7*110*4+1.5e9*40)/1e9; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("beyond the longest lists: %.4g s, want their steps' %.4g (set-list steps 4× cold)", got, want)
	}
	short := &AnonymousSetWork{Sets: 2000, AnonymousSets: 2000, NameSteps: 2e6, NameStepLengths: 2e6 * 2000, NameStepEntries: 2e6 * 20000, BindSteps: 2000 * 20000}
	if got := p.seconds(short); math.Abs(got.Hi/((2e6*name*1.1+4e7*10*1.1)/1e9)-1) > 1e-9 || len(p.pricingWarnings("nftables", MetricSyncFull, short)) != 0 {
		t.Errorf("2,000 sets binding over 20,000 entries: %+v, want no cold price and no warning", got)
	}
	for name, walk := range map[string][]results.AnonymousSetStep{
		"none":          nil,
		"naming only":   synthSetWalk[:2],
		"listing only":  synthSetWalk[4:],
		"no range":      {synthSetWalk[0], {Walk: results.AnonymousSetBinding, Length: 30000, NsPerStep: 10}},
		"not ascending": {synthSetWalk[1], synthSetWalk[0], synthSetWalk[2]},
	} {
		if p := newAnonymousSetPrice(walk); p != nil {
			t.Errorf("%s: priced %+v, want nil", name, p)
		}
	}
}

// TestAnonymousSetPricedSync calibrates on one-endpoint Services (no
// anonymous set) and predicts two-endpoint ones: nftables' full sync adds
// their walks priced at the payload's work and its incremental sync the
// sets listed, the iptables modes' do not, and the unpriced warning gives
// way to the beyond one.
func TestAnonymousSetPricedSync(t *testing.T) {
	run := synthRun()
	run.AnonymousSetWalk = synthSetWalk
	m, err := CalibrateRun(run, Options{MaxN: 20000})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Services: 20000, EndpointsPerService: 2, Position: PositionLast, NewConnPerSec: 1}
	preds, err := m.Predict(q)
	if err != nil {
		t.Fatal(err)
	}
	unpriced := func(w string) bool { return strings.Contains(w, "a term the model does not have") }
	for _, p := range preds {
		full := p.SyncFull
		if full == nil {
			continue
		}
		if p.Dataplane != "nftables" {
			if full.AnonymousSets != nil {
				t.Errorf("%s's full sync priced anonymous sets", p.Dataplane)
			}
			continue
		}
		work, err := syntheticWork("nftables", 20000, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := newAnonymousSetPrice(synthSetWalk).seconds(work)
		var b strings.Builder
		if err := WritePlanText(&b, q, m, preds); err != nil || !strings.Contains(b.String(), anonymousSetsRowLabel) {
			t.Errorf("the plan does not show the walks (%v):\n%s", err, b.String())
		}
		if full.AnonymousSets == nil || *full.AnonymousSets != want || full.Seconds.Value < want.Value || !strings.Contains(full.Form, "anonymous-set walks") {
			t.Fatalf("full sync %+v (walks %v), want the walks %+v within it", full.Seconds, full.AnonymousSets, want)
		}
		list := newAnonymousSetPrice(synthSetWalk).listingSeconds(work)
		if incr := p.SyncIncremental; incr == nil || incr.AnonymousSets == nil || *incr.AnonymousSets != list || math.Abs(list.Value-float64(work.AllSets)*10e-6) > 1e-9 || work.AllSets < 20000 || !strings.Contains(incr.Form, "listed") {
			t.Errorf("incremental sync %+v: want the table's %d sets (20,000 anonymous) listed at 10 µs within it (%+v)", incr, work.AllSets, list)
		}
		if slices.ContainsFunc(p.Warnings, unpriced) || !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "likely low") && strings.Contains(w, "anonymous sets") }) {
			t.Errorf("warnings %q: want the beyond warning, not the unpriced one", p.Warnings)
		}
	}
}
