package iptables

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// walkLinkedList is cache_chain_list_insert itself, on a sorted slice
// standing in for the linked list: the oracle ChainListCompares'
// Fenwick tree must agree with.
func walkLinkedList(tables [][]string) (compares, warm int64, longest int) {
	for _, names := range tables {
		var list []string
		var previous []int64 // each walk's compares, in order
		for _, name := range names {
			pos, found := len(list), false
			steps := int64(0)
			for i, have := range list {
				steps++
				if have == name {
					found = true
					break
				}
				if have > name {
					pos = i
					break
				}
			}
			if !found {
				list = append(list[:pos], append([]string{name}, list[pos:]...)...)
			}
			longest = max(longest, len(list))
			// Warm: the steps the longer of the two walks before this one
			// also took.
			shared := int64(0)
			for k := max(0, len(previous)-2); k < len(previous); k++ {
				shared = max(shared, min(steps, previous[k]))
			}
			compares, warm = compares+steps, warm+shared
			previous = append(previous, steps)
		}
	}
	return compares, warm, longest
}

func TestChainListCompares(t *testing.T) {
	for _, tt := range []struct {
		name     string
		payload  string
		compares int64
		inserts  int
		// warm: each walk's compares up to the longer of the two walks
		// before it, worked by hand.
		warm int64
	}{
		{"empty", "", 0, 0, 0},
		// filter: B (0 compares), A (1: B), -A B (2: A, B), then the
		// built-ins: INPUT (2: A, B, the end), FORWARD (3: A, B, INPUT),
		// OUTPUT (4: the end).
		{"declarations and a rule", "*filter\n:B - [0:0]\n:A - [0:0]\n-A B -j ACCEPT\nCOMMIT\n", 0 + 1 + 2 + 2 + 3 + 4, 6, 0 + 0 + 1 + 2 + 2 + 3},
		// a jump to a declared chain names it; to a target does not.
		// nat: X (0), -A X and its jump to X (1 each), -A X to DNAT (1),
		// PREROUTING (1: X), INPUT (1: PREROUTING), POSTROUTING (2:
		// INPUT, PREROUTING), OUTPUT (2: INPUT, POSTROUTING).
		{"jump to a chain", "*nat\n:X - [0:0]\n-A X -j X\n-A X -j DNAT --to-destination 1.2.3.4\nCOMMIT\n", 0 + 1 + 1 + 1 + 1 + 1 + 2 + 2, 8, 0 + 0 + 1 + 1 + 1 + 1 + 1 + 2},
		// a partial sync jumps to a chain it does not declare: still named.
		{"jump to an undeclared chain", "*filter\n:A - [0:0]\n-A A -j B\nCOMMIT\n", 0 + 1 + 1 + 2 + 3 + 4, 6, 0 + 0 + 1 + 1 + 2 + 3},
		{"uncommitted table", "*filter\n:A - [0:0]\n", 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, err := ChainListCompares(strings.NewReader(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			tables, _ := chainListInserts(strings.NewReader(tt.payload))
			want, warm, longest := walkLinkedList(tables)
			if w.Compares != want || w.Warm != warm || w.Longest != longest {
				t.Fatalf("compares %d (%d warm), longest %d; the linked list: %d (%d), %d", w.Compares, w.Warm, w.Longest, want, warm, longest)
			}
			if w.Compares != tt.compares || w.Inserts != tt.inserts || w.Warm != tt.warm {
				t.Fatalf("compares %d, inserts %d, warm %d; want %d, %d, %d", w.Compares, w.Inserts, w.Warm, tt.compares, tt.inserts, tt.warm)
			}
			var sum, warmSum int64
			for _, b := range w.ByLength {
				sum += b.Compares
				warmSum += b.Warm
				if b.MeanLength > float64(b.Max) || b.MeanLength <= float64(b.Max)/2 && b.Max > 1 {
					t.Fatalf("bucket %+v: mean outside (max/2, max]", b)
				}
			}
			if sum != w.Compares || warmSum != w.Warm {
				t.Fatalf("buckets hold %d compares of %d, %d warm of %d", sum, w.Compares, warmSum, w.Warm)
			}
		})
	}
}

// TestChainListComparesRandom checks the Fenwick tree against the linked
// list on random payloads: names repeat, jumps go to declared chains and
// to targets, tables follow one another.
func TestChainListComparesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 50 {
		var b strings.Builder
		for _, table := range []string{"filter", "nat"} {
			fmt.Fprintf(&b, "*%s\n", table)
			chains := 1 + rng.IntN(40)
			for c := range chains {
				fmt.Fprintf(&b, ":C%03d - [0:0]\n", (c*37)%101)
			}
			for range rng.IntN(120) {
				target := "ACCEPT"
				if rng.IntN(2) == 0 {
					target = fmt.Sprintf("C%03d", (rng.IntN(chains)*37)%101)
				}
				fmt.Fprintf(&b, "-A C%03d -p tcp -j %s\n", (rng.IntN(chains)*37)%101, target)
			}
			b.WriteString("COMMIT\n")
		}
		w, err := ChainListCompares(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		tables, _ := chainListInserts(strings.NewReader(b.String()))
		if want, warm, longest := walkLinkedList(tables); w.Compares != want || w.Warm != warm || w.Longest != longest {
			t.Fatalf("trial %d: compares %d (%d warm), longest %d; the linked list: %d (%d), %d", trial, w.Compares, w.Warm, w.Longest, want, warm, longest)
		}
	}
}

func TestChainListComparesErrors(t *testing.T) {
	for _, payload := range []string{"*filter\n:\nCOMMIT\n", "*filter\n-A\nCOMMIT\n"} {
		if _, err := ChainListCompares(strings.NewReader(payload)); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: error %v, want one naming line 2", payload, err)
		}
	}
}

func FuzzChainListCompares(f *testing.F) {
	f.Add("*filter\n:B - [0:0]\n:A - [0:0]\n-A B -j A\nCOMMIT\n")
	f.Fuzz(func(t *testing.T, payload string) {
		w, err := ChainListCompares(strings.NewReader(payload))
		if err != nil {
			return
		}
		tables, _ := chainListInserts(strings.NewReader(payload))
		if want, warm, _ := walkLinkedList(tables); w.Compares != want || w.Warm != warm {
			t.Fatalf("compares %d (%d warm), the linked list %d (%d)", w.Compares, w.Warm, want, warm)
		}
	})
}
