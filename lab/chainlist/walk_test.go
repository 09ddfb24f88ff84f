package chainlist

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/results"
)

// TestListOrder checks the lists' layout, packed into shared arenas: every
// node of a list the stride apart, linked in name order, each name found
// where find stops, and no list overwriting another.
func TestListOrder(t *testing.T) {
	for _, stride := range []int{352, 1808} {
		lengths := []int{2, 3, 100, 1001, 7, 1001, 40}
		lists := layoutLists(Layout{Payload: "full", NodeBytes: stride, Lengths: lengths}, 7)
		for j, l := range lists {
			n := lengths[j]
			base := l.head % uint32(stride)
			seen := 0
			var prev []byte
			for off := l.head; off != endOfList; off = binary.LittleEndian.Uint32(l.arena[off:]) {
				if off%uint32(stride) != base {
					t.Fatalf("%d chains %d apart: node at %d, list's first at %d", n, stride, off, base)
				}
				name := l.arena[int(off)+nameOffset : int(off)+nameOffset+nameLen]
				if prev != nil && bytes.Compare(prev, name) > 0 {
					t.Fatalf("%d chains: %q before %q", n, prev, name)
				}
				prev = name
				seen++
			}
			if seen != n {
				t.Fatalf("%d chains %d bytes apart: walked %d nodes", n, stride, seen)
			}
			for i, name := range l.names {
				steps64, _, _ := l.timedFind(name, 0)
				steps := int(steps64)
				if steps < 1 || steps > n || !bytes.Equal(l.nameAt(name, steps), name) {
					t.Fatalf("%d chains: name %d found after %d steps", n, i, steps)
				}
			}
		}
	}
}

// nameAt is the name of the node find stops at after steps.
func (l *list) nameAt(name []byte, steps int) []byte {
	off := l.head
	for range steps - 1 {
		off = binary.LittleEndian.Uint32(l.arena[off:])
	}
	return l.arena[int(off)+nameOffset : int(off)+nameOffset+nameLen]
}

// TestFindSteps checks that timedFind counts cache_chain_list_insert's
// comparisons: the names below the one looked up, and the one it stops at.
func TestFindSteps(t *testing.T) {
	l := layoutLists(Layout{NodeBytes: 352, Lengths: []int{50}}, 3)[0]
	for _, name := range l.names {
		below := 0
		for _, other := range l.names {
			if bytes.Compare(other, name) < 0 {
				below++
			}
		}
		if got, _, _ := l.timedFind(name, 0); got != int64(below+1) {
			t.Fatalf("timedFind(%q) = %d steps, want %d", name, got, below+1)
		}
	}
}

func TestMeasure(t *testing.T) {
	layouts := []Layout{{Payload: "full", NodeBytes: 352, Lengths: []int{1000, 4000}}, {Payload: "partial", NodeBytes: 1808, Lengths: []int{2000}}}
	steps, err := Measure(context.Background(), layouts, Options{PerLength: 5 * time.Millisecond, Rounds: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []results.ChainListStep{{Chains: 1000, Layout: "full", NodeBytes: 352}, {Chains: 4000, Layout: "full", NodeBytes: 352}, {Chains: 2000, Layout: "partial", NodeBytes: 1808}}
	if len(steps) != len(want) {
		t.Fatalf("steps %+v", steps)
	}
	for i, s := range steps {
		if s.Chains != want[i].Chains || s.Layout != want[i].Layout || s.NodeBytes != want[i].NodeBytes {
			t.Errorf("step %d = %+v, want %+v", i, s, want[i])
		}
		for _, ns := range []float64{s.NsPerStep, s.ColdNsPerStep, s.WarmNsPerStep, s.MinNsPerStep, s.MaxNsPerStep} {
			if !(ns > 0 && ns < 1e6) {
				t.Errorf("%d chains: %+v: a step outside (0, 1 ms)", s.Chains, s)
			}
		}
		if !(s.MinNsPerStep <= s.NsPerStep*(1+1e-9) && s.NsPerStep <= s.MaxNsPerStep*(1+1e-9)) {
			t.Errorf("%d chains: mean step %v outside its rounds' range [%v, %v]", s.Chains, s.NsPerStep, s.MinNsPerStep, s.MaxNsPerStep)
		}
	}
}

// TestLayouts checks the default layouts: one for each payload the planner
// prices, lengths √2 apart from 1,000.
func TestLayouts(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Layouts {
		seen[l.Payload] = true
		if l.Lengths[0] != 1000 || l.NodeBytes < nameOffset+nameLen {
			t.Errorf("layout %+v", l)
		}
		for i := 1; i < len(l.Lengths); i++ {
			if r := float64(l.Lengths[i]) / float64(l.Lengths[i-1]); math.Abs(r-math.Sqrt2) > 0.001 {
				t.Errorf("%s lengths %v: %d/%d is not √2", l.Payload, l.Lengths, l.Lengths[i], l.Lengths[i-1])
			}
		}
	}
	if !seen[results.ChainListFull] || !seen[results.ChainListPartial] || len(Layouts) != 2 {
		t.Errorf("layouts %+v: want the full and the partial payload's", Layouts)
	}
}

func TestMeasureRefuses(t *testing.T) {
	one := func(stride int, lengths ...int) []Layout {
		return []Layout{{Payload: "full", NodeBytes: stride, Lengths: lengths}}
	}
	for _, tt := range []struct {
		name    string
		layouts []Layout
		opts    Options
	}{
		{"no rounds", one(352, 100), Options{PerLength: time.Millisecond}},
		{"no time", one(352, 100), Options{Rounds: 1}},
		{"one chain", one(352, 1), Options{PerLength: time.Millisecond, Rounds: 1}},
		{"nodes overlap", one(40, 100), Options{PerLength: time.Millisecond, Rounds: 1}},
		{"beyond 32-bit offsets", one(1808, 3_000_000), Options{PerLength: time.Millisecond, Rounds: 1}},
	} {
		if _, err := Measure(context.Background(), tt.layouts, tt.opts); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, one(352, 100), Options{PerLength: time.Millisecond, Rounds: 1}); err == nil {
		t.Error("cancelled: no error")
	}
}

// TestTimedFindSplit checks that a split walk takes the steps an unsplit
// one does, and times a remainder only when it walks past the split.
func TestTimedFindSplit(t *testing.T) {
	l := layoutLists(Layout{NodeBytes: 352, Lengths: []int{500}}, 5)[0]
	for _, name := range l.names[:50] {
		steps, _, _ := l.timedFind(name, 0)
		for _, split := range []int64{0, 1, steps / 2, steps, steps + 1} {
			got, warmNs, coldNs := l.timedFind(name, split)
			if got != steps || warmNs < 0 || coldNs < 0 || (split >= steps && coldNs != 0) {
				t.Fatalf("split at %d of %d: %d steps, %v and %v ns", split, steps, got, warmNs, coldNs)
			}
		}
	}
}

// TestWarmShare checks that random walks split as sim/iptables.WarmSteps
// counts: a walk to a uniformly random place after two others is warm up
// to the longer of them, 5/6 of its steps on average.
func TestWarmShare(t *testing.T) {
	l := layoutLists(Layout{NodeBytes: 352, Lengths: []int{2000}}, 9)[0]
	st := l.timeSteps(30*time.Millisecond, 0)
	if share := float64(st.warm) / float64(st.warm+st.cold); math.Abs(share-5.0/6) > 0.05 {
		t.Errorf("warm share %.3f of %d steps, want about 5/6", share, st.warm+st.cold)
	}
}

// TestFirstWalkHasColdSteps checks that a turn of a single walk, as a turn
// on the longest lists is, still times cold steps: the first timed walk's
// warm steps are counted against the warm-up's last two random walks (a
// walk to a random place passes both a third of the time), not against a
// walk of the whole list, which left such turns no cold step.
func TestFirstWalkHasColdSteps(t *testing.T) {
	var turns, withCold int
	for seed := uint64(0); seed < 200 && turns < 30; seed++ {
		l := layoutLists(Layout{NodeBytes: 352, Lengths: []int{1000}}, seed)[0]
		st := l.timeSteps(time.Microsecond, 0) // a walk of 1,000 chains takes a few µs
		if st.cold+st.warm == 0 {
			continue // preempted before the first walk
		}
		turns++
		if st.cold > 0 {
			withCold++
		}
	}
	if share := float64(withCold) / float64(turns); turns < 30 || share < 0.1 || share > 0.6 {
		t.Errorf("%d of %d short turns timed a cold step, want about a third", withCold, turns)
	}
}
