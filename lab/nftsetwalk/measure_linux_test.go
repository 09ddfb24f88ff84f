package nftsetwalk

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/results"
)

// TestMeasure times small tables' walks in the kernel: every step
// positive and ordered, at the lengths the payloads give, nothing left.
// The naming walk is timed over 4,000 sets with 256 maps added (about 10⁶
// steps, tens of ms): over 1,000 sets with 128 (10⁵ steps, a few ms) its
// rounds fell within nft's own swings while CI's other packages ran
// beside it (1 of 6 attempts positive, in a clean-clone .ci/run).
func TestMeasure(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	prefix := labtest.LeasedPrefix(t)
	steps, err := Measure(context.Background(), Options{Naming: []int{4000}, Binding: []int{3000, 8000}, Rounds: 2, AddedSets: 256, BindingSteps: 1e7, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		walk             string
		services, length int
	}{{results.AnonymousSetNaming, 4000, 4000}, {results.AnonymousSetListing, 4000, 4000}, {results.AnonymousSetBinding, 3000, 0}, {results.AnonymousSetBinding, 8000, 0}}
	if len(steps) != len(want) {
		t.Fatalf("steps %+v: want %d", steps, len(want))
	}
	for i, s := range steps {
		w := want[i]
		if s.Walk != w.walk || s.Services != w.services || (w.length > 0 && (s.Length < w.length || s.Length > w.length+16)) || s.Rounds != 2 {
			t.Errorf("step %+v: want %+v, 2 rounds", s, w)
		}
		// Naming adds AddedSets maps; binding enough for about
		// BindingSteps steps (10⁷ over 15,000-40,000 entries).
		if sets := s.AddedSets; (i < 2 && sets != 256) || (i >= 2 && (sets < 240 || sets > 700)) {
			t.Errorf("step %+v: %d maps added", s, sets)
		}
		if s.MinNsPerStep <= 0 || s.NsPerStep < s.MinNsPerStep || s.MaxNsPerStep < s.NsPerStep {
			t.Errorf("step %+v: want positive, ordered prices", s)
		}
	}
	// A binding walk passes the whole load's commit list: about five
	// entries a one-endpoint Service (sim/cost counts them).
	if l := steps[3].Length; l < 5*8000 || l > 6*8000 {
		t.Errorf("binding walk at 8,000 services passes %d entries, want 40,000-48,000", l)
	}
	for _, name := range []string{prefix + "-nftsets", prefix + "-nftsets-b"} {
		if netns.Exists(name) {
			t.Errorf("namespace %s left behind", name)
		}
	}
}

// TestAdditionPayload checks that an addition is as many anonymous maps
// as asked, in the rendered table, one binding step each past the chain.
func TestAdditionPayload(t *testing.T) {
	p := additionPayload(300)
	w := cost.NFTablesAnonymousSetWork(p)
	if w.AnonymousSets != 300 || bytes.Count(p, []byte("numgen")) != 300 {
		t.Errorf("addition of 300: %d sets counted", w.Sets)
	}
}

func TestMeasureRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{{}, {Prefix: "svl-x", Rounds: 0, AddedSets: 16, BindingSteps: 1, Naming: []int{10}, Binding: []int{10}},
		{Prefix: "svl-x", Rounds: 1, AddedSets: 16, BindingSteps: 1, Naming: []int{10}},
		{Prefix: "svl-x", Rounds: 1, AddedSets: 16, BindingSteps: 1, Naming: []int{0}, Binding: []int{10}},
		{Prefix: "svl-x", Rounds: 1, AddedSets: 16, Naming: []int{10}, Binding: []int{10}}} {
		if _, err := Measure(context.Background(), o); err == nil {
			t.Errorf("Measure(%+v) = nil error", o)
		}
	}
}

// TestChunksOf checks that a script is cut into whole lines, in order,
// at most so many a piece, a last line without its newline kept.
func TestChunksOf(t *testing.T) {
	for _, tt := range []struct {
		payload string
		lines   int
		want    []string
	}{
		{"a\nb\nc\n", 2, []string{"a\nb\n", "c\n"}},
		{"a\nb\nc", 2, []string{"a\nb\n", "c"}},
		{"a\nb\n", 5, []string{"a\nb\n"}},
		{"", 3, nil},
	} {
		var got []string
		for chunk := range chunksOf([]byte(tt.payload), tt.lines) {
			got = append(got, string(chunk))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("chunksOf(%q, %d) = %q, want %q", tt.payload, tt.lines, got, tt.want)
		}
	}
}
