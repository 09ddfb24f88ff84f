package cost

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/nftables"
)

// nf_tables keeps each table's chains (an rhltable) and each set's or
// map's elements (the nft_rhash backend, sets declared without a size) in
// resizable hash tables, lib/rhashtable.c. A table doubles its bucket
// array when it holds more than 3/4 as many entries as buckets
// (rht_grow_above_75 in include/linux/rhashtable.h), and allocates the
// array with kvmalloc: a header and one 8-byte pointer per bucket, which
// kmalloc rounds up to the next power of two, twice the pointers. So the
// kernel memory of a ruleset steps where a table crosses 3/4 of a power of
// two: nftables' 50,000 Services fill four such tables (the chains,
// cluster-ips, service-ips and hairpin-connections) past 49,152 entries,
// and took 4.2 MB more than a line through 40,000 to 49,100 Services,
// 1.1 MB of it at 49,140 where the chains alone had crossed
// (docs/measurements.md, "Kernel hash tables").
const (
	// hashGrowNumerator/hashGrowDenominator is the load above which a
	// table doubles.
	hashGrowNumerator, hashGrowDenominator = 3, 4
	// hashBucketBytes is what one bucket of an array costs once kmalloc
	// has rounded the array up: two pointers. A kvmalloc that falls back
	// to vmalloc (memory too fragmented for the pages in one piece) costs
	// one, so a measurement may show up to half less.
	hashBucketBytes = 16
	// hashMinBuckets is rhashtable's smallest array (HASH_MIN_SIZE).
	hashMinBuckets = 4
)

// hashBuckets is the bucket count of a table grown to hold entries.
func hashBuckets(entries int) int {
	buckets := hashMinBuckets
	for entries > buckets/hashGrowDenominator*hashGrowNumerator {
		buckets <<= 1
	}
	return buckets
}

// hashTablesMB is the memory (MB) of the bucket arrays of hash tables
// holding each of counts entries.
func hashTablesMB(counts []int) float64 {
	total := 0
	for _, c := range counts {
		total += hashBuckets(c) * hashBucketBytes
	}
	return float64(total) / 1e6
}

// payloadHashTables reads a payload of mode (an nft script, or
// iptables-restore input as iptables-nft loads it) and returns how many
// entries each hash table it fills holds: every table's chains, and every
// set's or map's elements (nftables). Other modes fill none.
func payloadHashTables(mode dataplane.Mode, payload []byte) ([]int, error) {
	switch mode {
	case dataplane.ModeNFTables:
		rs, err := nftables.Parse(bytes.NewReader(withoutRules(payload, "add rule ", "insert rule ")))
		if err != nil {
			return nil, fmt.Errorf("count the hash tables of the %s payload: %w", mode, err)
		}
		var counts []int
		for _, t := range rs.Tables {
			counts = append(counts, len(t.Chains))
			for _, s := range t.Sets {
				if resizableSet(s) {
					counts = append(counts, len(s.Elements))
				}
			}
		}
		return counts, nil
	case dataplane.ModeIPTables:
		d, err := iptables.Parse(bytes.NewReader(withoutRules(payload, "-A ", "-I ")))
		if err != nil {
			return nil, fmt.Errorf("count the hash tables of the %s payload: %w", mode, err)
		}
		var counts []int
		for _, t := range d.Tables {
			counts = append(counts, len(t.Chains))
		}
		return counts, nil
	}
	return nil, nil
}

// resizableSet says whether the kernel keeps s in a resizable hash table
// (nft_rhash): a set without the interval flag (those take rbtree or
// pipapo) and without a declared size (a fixed hash sized by it).
func resizableSet(s *nftables.Set) bool {
	return s.Size == 0 && !slices.Contains(s.Flags, "interval")
}

// withoutRules is payload less its lines that start with one of
// rulePrefixes (its rules): rules fill no hash table, and they take the
// parsers most of their time. svclab plan --objects cluster-500 at 20×
// took 1.5-1.6 s without counting the tables, 5.4-6.2 s parsing the whole
// payloads and 2.3-2.5 s without their rules (most of that nftables'
// element lines: one per endpoint).
func withoutRules(payload []byte, rulePrefixes ...string) []byte {
	out := make([]byte, 0, len(payload)/4)
	for line := range bytes.Lines(payload) {
		if !hasAnyPrefix(line, rulePrefixes) {
			out = append(out, line...)
		}
	}
	return out
}

// hasAnyPrefix says whether line starts with one of prefixes.
func hasAnyPrefix(line []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// hashTableSample is how many synthetic services syntheticHashTables
// renders (and twice as many) to read the tables' growth per service.
const hashTableSample = 64

// syntheticHashTables is payloadHashTables for mode's payload of n
// synthetic services with m endpoints each: exact up to hashTableSample
// services, else extended as a line from the payloads of hashTableSample
// and twice as many (each table's entries are a fixed part and a part per
// service; the seeded generator's services are alike).
func syntheticHashTables(mode string, n, m int) ([]int, error) {
	if n <= hashTableSample {
		return renderedHashTables(mode, n, m)
	}
	g, err := hashTableGrowthOf(mode, m)
	if err != nil {
		return nil, err
	}
	counts := make([]int, len(g.sample))
	for i := range g.sample {
		counts[i] = g.sample[i] + g.perSample[i]*(n-hashTableSample)/hashTableSample
	}
	return counts, nil
}

// hashTableGrowth is each table's entries at hashTableSample services and
// what hashTableSample more add.
type hashTableGrowth struct{ sample, perSample []int }

// hashTableGrowths memoizes hashTableGrowthOf by mode and endpoints: a
// calibration asks for every point's tables and a budget's search for
// every size it tries, all on the same two renders.
var hashTableGrowths sync.Map

// syntheticShape keys the memos of synthetic payloads: a mode and the
// endpoints of each service.
type syntheticShape struct {
	mode      string
	endpoints int
}

// hashTableGrowthOf renders mode's payloads of hashTableSample and twice
// as many services with m endpoints each, once per mode and m.
func hashTableGrowthOf(mode string, m int) (hashTableGrowth, error) {
	key := syntheticShape{mode, m}
	if g, ok := hashTableGrowths.Load(key); ok {
		return g.(hashTableGrowth), nil
	}
	small, err := renderedHashTables(mode, hashTableSample, m)
	if err != nil {
		return hashTableGrowth{}, err
	}
	large, err := renderedHashTables(mode, 2*hashTableSample, m)
	if err != nil {
		return hashTableGrowth{}, err
	}
	if len(small) != len(large) {
		return hashTableGrowth{}, fmt.Errorf("%s payload of %d and %d services: %d and %d hash tables, want as many", mode, hashTableSample, 2*hashTableSample, len(small), len(large))
	}
	g := hashTableGrowth{sample: small, perSample: make([]int, len(small))}
	for i := range small {
		g.perSample[i] = large[i] - small[i]
	}
	hashTableGrowths.Store(key, g)
	return g, nil
}

// renderedHashTables renders mode's payload of n synthetic services with
// m endpoints each and counts its hash tables.
func renderedHashTables(mode string, n, m int) ([]int, error) {
	var payload bytes.Buffer
	if _, err := renderTo(&payload, mode, n, m); err != nil {
		return nil, err
	}
	md, err := dataplane.ParseMode(mode)
	if err != nil {
		return nil, err
	}
	return payloadHashTables(md, payload.Bytes())
}
