package cost

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
)

// TestHashBucketsDoubleAboveThreeQuarters: a table doubles its array once
// it holds more than 3/4 as many entries as buckets, from 4 buckets.
func TestHashBucketsDoubleAboveThreeQuarters(t *testing.T) {
	tests := []struct{ entries, want int }{
		{0, 4}, {3, 4}, {4, 8}, {6, 8}, {7, 16},
		{24_576, 32_768}, {24_577, 65_536},
		{49_152, 65_536}, {49_153, 131_072},
	}
	for _, tt := range tests {
		if got := hashBuckets(tt.entries); got != tt.want {
			t.Errorf("hashBuckets(%d) = %d, want %d", tt.entries, got, tt.want)
		}
	}
}

// TestPayloadHashTablesCountTheRenderedTables: the tables counted in a
// rendered payload hold its chains (nftables: one table; iptables: nat and
// filter) and, for nftables, its set and map elements, as many as the
// ruleset size's formulas count.
func TestPayloadHashTablesCountTheRenderedTables(t *testing.T) {
	tests := []struct {
		mode       dataplane.Mode
		services   int
		endpoints  int
		chainTabls int // the leading counts that are tables' chains
	}{
		{dataplane.ModeNFTables, 3, 1, 1},
		{dataplane.ModeNFTables, 40, 2, 1},
		{dataplane.ModeIPTables, 3, 1, 2},
		{dataplane.ModeIPTables, 40, 2, 2},
	}
	for _, tt := range tests {
		var payload bytes.Buffer
		if _, err := renderTo(&payload, string(tt.mode), tt.services, tt.endpoints); err != nil {
			t.Fatal(err)
		}
		got, err := payloadHashTables(tt.mode, payload.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		size, err := countsOf(string(tt.mode), tt.services, tt.endpoints)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < tt.chainTabls {
			t.Fatalf("%s, %d services: tables %v, want at least %d", tt.mode, tt.services, got, tt.chainTabls)
		}
		chains, elements := sum(got[:tt.chainTabls]), sum(got[tt.chainTabls:])
		if chains != size.Chains || elements != size.Elements {
			t.Errorf("%s, %d services × %d: tables %v hold %d chains and %d elements, want %d and %d",
				tt.mode, tt.services, tt.endpoints, got, chains, elements, size.Chains, size.Elements)
		}
	}
	if got, err := payloadHashTables(dataplane.ModeIPVS, nil); err != nil || got != nil {
		t.Errorf("ipvs: %v, %v; want no tables", got, err)
	}
}

// TestPayloadHashTablesLeaveOutFixedSets: a set with intervals (rbtree or
// pipapo) or a declared size (a fixed hash) is no resizable table.
func TestPayloadHashTablesLeaveOutFixedSets(t *testing.T) {
	payload := `add table ip t
add chain ip t c
add set ip t plain { type ipv4_addr ; }
add set ip t ranges { type ipv4_addr ; flags interval ; }
add set ip t sized { type ipv4_addr ; size 65536 ; }
add element ip t plain { 10.0.0.1 }
add element ip t plain { 10.0.0.2 }
add element ip t ranges { 10.0.0.0/8 }
add element ip t sized { 10.0.0.3 }
add rule ip t c ip daddr @plain accept
`
	got, err := payloadHashTables(dataplane.ModeNFTables, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("tables %v, want %v (the chain, and plain's two elements)", got, want)
	}
}

// TestSyntheticHashTablesMatchTheRender: extended from two small renders,
// the counts are those of the rendered payload itself.
func TestSyntheticHashTablesMatchTheRender(t *testing.T) {
	for _, mode := range []string{"nftables", "iptables"} {
		for _, n := range []int{0, 10, hashTableSample, 300, 1001} {
			for _, m := range []int{1, 3} {
				got, err := syntheticHashTables(mode, n, m)
				if err != nil {
					t.Fatal(err)
				}
				want, err := renderedHashTables(mode, n, m)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s, %d services × %d: %v, rendered %v", mode, n, m, got, want)
				}
			}
		}
	}
}

// TestKernelMemoryStepsWhereTheTablesDouble: memory that is a line in
// rules plus the hash tables' arrays, measured up to 40,000 Services, is
// predicted exactly past the doubling at 49,152 (nftables' four tables
// there add 4.2 MB between 49,100 and 49,200 Services), while a line
// alone misses 50,000 Services by more than 3 MB.
func TestKernelMemoryStepsWhereTheTablesDouble(t *testing.T) {
	const bytesPerRule = 1000.0
	truth := func(t *testing.T, n int) (Size, float64) {
		size, err := countsOf("nftables", n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if size.HashTables, err = syntheticHashTables("nftables", n, 1); err != nil {
			t.Fatal(err)
		}
		return size, bytesPerRule*float64(size.Rules)/1e6 + hashTablesMB(size.HashTables)
	}
	var points []results.Point
	for _, n := range []int{1000, 2500, 5000, 10_000, 20_000, 40_000} {
		size, mb := truth(t, n)
		points = append(points, results.Point{Dataplane: "nftables", Services: n, Rules: size.Rules, KernelMemBytes: int64(mb * 1e6)})
	}
	stepped, line := fitMemLine(points, nil, "nftables", true), fitMemLine(points, nil, "nftables", false)
	if stepped == nil || line == nil {
		t.Fatal("no memory line fitted")
	}
	for _, n := range []int{49_100, 49_200, 50_000} {
		size, want := truth(t, n)
		if got := stepped.at(size); math.Abs(got.Value-want) > 0.01 || !got.Contains(want) {
			t.Errorf("%d services: %.3f MB [%.3f, %.3f], want %.3f", n, got.Value, got.Lo, got.Hi, want)
		}
	}
	below, _ := truth(t, 49_100)
	above, _ := truth(t, 49_200)
	if step := stepped.at(above).Value - stepped.at(below).Value; step < 4 {
		t.Errorf("49,100 to 49,200 services: +%.2f MB, want the four tables' +4.2 MB", step)
	}
	size, want := truth(t, 50_000)
	if miss := want - line.at(size).Value; miss < 3 {
		t.Errorf("a line alone: %.2f MB below the truth at 50,000 services, want more than 3 (else this test shows nothing)", miss)
	}
}

func sum(counts []int) int {
	total := 0
	for _, c := range counts {
		total += c
	}
	return total
}
