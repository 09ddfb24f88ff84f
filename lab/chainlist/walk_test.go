package chainlist

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"
	"time"
)

// TestListOrder checks the list's layout: every node NodeStride apart in
// declaration order, linked in name order, each name found where find
// stops.
func TestListOrder(t *testing.T) {
	for _, n := range []int{2, 3, 100, 1001} {
		l := newList(n, 7)
		seen := 0
		var prev []byte
		for off := l.head; off != endOfList; off = binary.LittleEndian.Uint32(l.arena[off:]) {
			if off%NodeStride != 0 {
				t.Fatalf("%d chains: node at %d, not a multiple of %d", n, off, NodeStride)
			}
			name := l.arena[int(off)+nameOffset : int(off)+nameOffset+nameLen]
			if prev != nil && bytes.Compare(prev, name) > 0 {
				t.Fatalf("%d chains: %q before %q", n, prev, name)
			}
			prev = name
			seen++
		}
		if seen != n {
			t.Fatalf("%d chains: walked %d nodes", n, seen)
		}
		for i, name := range l.names {
			steps := l.find(name)
			if steps < 1 || steps > n {
				t.Fatalf("%d chains: name %d found after %d steps", n, i, steps)
			}
		}
	}
}

// TestFindSteps checks that find counts cache_chain_list_insert's
// comparisons: the names below the one looked up, and the one it stops at.
func TestFindSteps(t *testing.T) {
	l := newList(50, 3)
	for _, name := range l.names {
		below := 0
		for _, other := range l.names {
			if bytes.Compare(other, name) < 0 {
				below++
			}
		}
		if got := l.find(name); got != below+1 {
			t.Fatalf("find(%q) = %d steps, want %d", name, got, below+1)
		}
	}
}

func TestMeasure(t *testing.T) {
	steps, err := Measure(context.Background(), []int{1000, 4000}, Options{PerLength: 5 * time.Millisecond, Rounds: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Chains != 1000 || steps[1].Chains != 4000 {
		t.Fatalf("steps %+v", steps)
	}
	for _, s := range steps {
		if !(s.NsPerStep > 0 && s.NsPerStep < 1e6) {
			t.Fatalf("%d chains: %v ns a step", s.Chains, s.NsPerStep)
		}
	}
}

func TestMeasureRefuses(t *testing.T) {
	for _, tt := range []struct {
		name    string
		lengths []int
		opts    Options
	}{
		{"no rounds", []int{100}, Options{PerLength: time.Millisecond}},
		{"no time", []int{100}, Options{Rounds: 1}},
		{"one chain", []int{1}, Options{PerLength: time.Millisecond, Rounds: 1}},
	} {
		if _, err := Measure(context.Background(), tt.lengths, tt.opts); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, []int{100}, Options{PerLength: time.Millisecond, Rounds: 1}); err == nil {
		t.Error("cancelled: no error")
	}
}
