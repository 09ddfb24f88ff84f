package iptables

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
)

// ChainListWork is the walking iptables-nft-restore --noflush does in its
// chain list for one payload (iptables 1.8.9, nft-cache.c): every command
// names its chain, and a rule that jumps to a user chain names that chain
// too; each name is looked up in a sorted linked list from its head with
// strcmp and inserted where the walk stops, once per table (the list is
// released at COMMIT, after the table's built-in chains are added to it).
// iptables-legacy-restore keeps no such list.
type ChainListWork struct {
	// Compares is the strcmp calls of all the walks: one per node passed,
	// and one for the node the walk stops at.
	Compares int64 `json:"compares"`
	// Inserts is the names looked up (each command's chain, each user
	// chain jumped to, the built-in chains at COMMIT).
	Inserts int `json:"inserts"`
	// Warm is the compares of Compares a walk makes over nodes one of the
	// WarmWindow walks before it passed too: kube-proxy's full payload
	// names a chain in three commands in a row, and a walk that follows
	// another over the same prefix of the list finds it in the caches.
	Warm int64 `json:"warm_compares"`
	// Longest is the longest list, in chains.
	Longest int `json:"longest"`
	// ByLength splits Compares by the list's length when they were made,
	// in buckets that double (see LengthSteps): a step's cost depends on
	// how much memory the list spans. Left out of JSON: the counts say what
	// the walk is, the buckets only serve its pricing.
	ByLength []LengthSteps `json:"-"`
}

// LengthSteps are the compares made while the list's length was in
// (Max/2, Max], the warm ones among them, and their mean list length
// (weighted by compares).
type LengthSteps struct {
	Max        int     `json:"max"`
	Compares   int64   `json:"compares"`
	Warm       int64   `json:"warm_compares"`
	MeanLength float64 `json:"mean_length"`
}

// WarmWindow is how many walks back a walk's compares count as warm
// (ChainListWork.Warm): a walk passes the list's first nodes up to its
// name's place, so of its compares, as many as the longest of the
// WarmWindow walks before it made went over nodes that walk has just
// loaded. Two: the previous command's walks (each command names its chain
// and, for a jump, its target). lab/chainlist times warm and cold steps
// by the same rule.
const WarmWindow = 2

// WarmSteps is how many of a walk's steps are warm after walks of recent
// steps (the WarmWindow walks before it).
func WarmSteps(steps int64, recent []int64) int64 {
	longest := int64(0)
	for _, r := range recent {
		longest = max(longest, r)
	}
	return min(steps, longest)
}

// nftCacheBuiltins are the chains nft_cache_build adds to the list at COMMIT,
// per table, in iptables 1.8.9's order (nft.c, xtables_ipv4).
var nftCacheBuiltins = map[string][]string{
	"raw":      {"PREROUTING", "OUTPUT"},
	"mangle":   {"PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"},
	"filter":   {"INPUT", "FORWARD", "OUTPUT"},
	"security": {"INPUT", "FORWARD", "OUTPUT"},
	"nat":      {"PREROUTING", "INPUT", "POSTROUTING", "OUTPUT"},
}

// ChainListCompares counts the chain-list walking of an iptables-restore
// payload (ChainListWork). It reads the text as iptables-restore does,
// line by line: "*table" starts a table, ":chain" declares one, "-A" and
// "-I" name a rule's chain, and "-j" or "-g" to a user chain names that
// chain, declared in the payload or not (a partial sync jumps to chains it
// leaves alone).
func ChainListCompares(r io.Reader) (ChainListWork, error) {
	tables, err := chainListInserts(r)
	if err != nil {
		return ChainListWork{}, err
	}
	var w ChainListWork
	buckets := map[int]*lengthAccumulator{}
	for _, names := range tables {
		w.Inserts += len(names)
		walkSortedList(names, &w, buckets)
	}
	w.ByLength = sortedBuckets(buckets)
	return w, nil
}

// chainListInserts is each table's looked-up names in order.
func chainListInserts(r io.Reader) ([][]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var tables [][]string
	var table string
	var names []string
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "*"):
			table, names = strings.TrimSpace(text[1:]), nil
		case text == "COMMIT":
			tables = append(tables, append(names, nftCacheBuiltins[table]...))
			names = nil
		case strings.HasPrefix(text, ":"):
			f := strings.Fields(text[1:])
			if len(f) == 0 {
				return nil, fmt.Errorf("line %d: chain declaration without a name", line)
			}
			names = append(names, f[0])
		case strings.HasPrefix(text, "-A") || strings.HasPrefix(text, "-I"):
			f := strings.Fields(text)
			if f[0] != "-A" && f[0] != "-I" {
				continue
			}
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: rule without a chain", line)
			}
			names = append(names, f[1])
			if jump := jumpTarget(f); jump != "" && !targetNames[jump] {
				names = append(names, jump)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line, err)
	}
	return tables, nil
}

// targetNames are the -j names iptables resolves to a target, not a user
// chain: the standard verdicts and the target extensions Debian 12's
// iptables 1.8.9 ships (libxt_*.so, libipt_*.so). iptables-nft-restore
// names any other jump's chain to its chain list (nft-cmd.c: a jump
// without a target).
var targetNames = map[string]bool{
	"ACCEPT": true, "DROP": true, "QUEUE": true, "RETURN": true,
	"AUDIT": true, "CHECKSUM": true, "CLASSIFY": true, "CLUSTERIP": true, "CONNMARK": true, "CONNSECMARK": true,
	"CT": true, "DNAT": true, "DSCP": true, "ECN": true, "HMARK": true, "IDLETIMER": true, "LED": true, "LOG": true,
	"MARK": true, "MASQUERADE": true, "NAT": true, "NETMAP": true, "NFLOG": true, "NFQUEUE": true, "NOTRACK": true,
	"RATEEST": true, "REDIRECT": true, "REJECT": true, "SECMARK": true, "SET": true, "SNAT": true, "SYNPROXY": true,
	"TCPMSS": true, "TCPOPTSTRIP": true, "TEE": true, "TOS": true, "TPROXY": true, "TRACE": true, "TTL": true, "ULOG": true,
}

// jumpTarget is the chain or target a rule's -j or -g names, or "".
func jumpTarget(fields []string) string {
	for i := 2; i+1 < len(fields); i++ {
		if fields[i] == "-j" || fields[i] == "-g" {
			return fields[i+1]
		}
	}
	return ""
}

// walkSortedList replays one table's lookups against a sorted list and
// adds their compares to w: a lookup passes every name below it and
// compares once more when the list holds its name or one above it.
// A Fenwick tree over the names' ranks counts the names below in
// O(log n) a lookup.
func walkSortedList(names []string, w *ChainListWork, buckets map[int]*lengthAccumulator) {
	universe := slices.Clone(names)
	slices.Sort(universe)
	universe = slices.Compact(universe)
	present := newFenwick(len(universe))
	length := 0
	recent := make([]int64, WarmWindow)
	for i, name := range names {
		rank, _ := slices.BinarySearch(universe, name)
		below := present.sum(rank)
		has := present.sum(rank+1) > below
		compares := int64(below)
		if has || length > below {
			compares++
		}
		warm := WarmSteps(compares, recent)
		recent[i%WarmWindow] = compares
		if compares > 0 {
			bucketFor(buckets, length).add(compares, warm, length)
		}
		w.Compares += compares
		w.Warm += warm
		if !has {
			present.add(rank)
			length++
			w.Longest = max(w.Longest, length)
		}
	}
}

// lengthAccumulator sums one LengthSteps bucket.
type lengthAccumulator struct {
	compares, warm int64
	weighted       float64
}

func (a *lengthAccumulator) add(compares, warm int64, length int) {
	a.compares += compares
	a.warm += warm
	a.weighted += float64(compares) * float64(length)
}

// bucketFor is the accumulator of lengths in (max/2, max], max a power of 2.
func bucketFor(buckets map[int]*lengthAccumulator, length int) *lengthAccumulator {
	top := 1
	if length > 1 {
		top = 1 << bits.Len(uint(length-1))
	}
	if buckets[top] == nil {
		buckets[top] = &lengthAccumulator{}
	}
	return buckets[top]
}

func sortedBuckets(buckets map[int]*lengthAccumulator) []LengthSteps {
	var out []LengthSteps
	for top, a := range buckets {
		out = append(out, LengthSteps{Max: top, Compares: a.compares, Warm: a.warm, MeanLength: a.weighted / float64(a.compares)})
	}
	slices.SortFunc(out, func(a, b LengthSteps) int { return a.Max - b.Max })
	return out
}

// fenwick counts the names present at each rank.
type fenwick []int

func newFenwick(n int) fenwick { return make(fenwick, n+1) }

// add marks rank present.
func (f fenwick) add(rank int) {
	for i := rank + 1; i < len(f); i += i & -i {
		f[i]++
	}
}

// sum is the count present at ranks below n.
func (f fenwick) sum(n int) int {
	s := 0
	for i := n; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}

// Scaled is the work of a payload of the same kind whose lists are f
// times as long (f ≥ 1) and whose walks make c times the compares:
// lookups and lengths grow as f, every length's compares as c.
func (w *ChainListWork) Scaled(f, c float64) *ChainListWork {
	out := &ChainListWork{Compares: int64(float64(w.Compares) * c), Warm: int64(float64(w.Warm) * c), Inserts: int(float64(w.Inserts) * f), Longest: int(float64(w.Longest) * f)}
	for _, b := range w.ByLength {
		out.ByLength = append(out.ByLength, LengthSteps{Max: int(float64(b.Max) * f), Compares: int64(float64(b.Compares) * c), Warm: int64(float64(b.Warm) * c), MeanLength: b.MeanLength * f})
	}
	return out
}

// Add adds another proxier's walk (each IP family's restore keeps a list
// of its own): compares and lookups add, buckets merge.
func (w *ChainListWork) Add(o *ChainListWork) {
	w.Compares += o.Compares
	w.Warm += o.Warm
	w.Inserts += o.Inserts
	w.Longest = max(w.Longest, o.Longest)
	for _, b := range o.ByLength {
		i := slices.IndexFunc(w.ByLength, func(a LengthSteps) bool { return a.Max == b.Max })
		if i < 0 {
			w.ByLength = append(w.ByLength, b)
			continue
		}
		a := &w.ByLength[i]
		total := a.Compares + b.Compares
		a.MeanLength = (a.MeanLength*float64(a.Compares) + b.MeanLength*float64(b.Compares)) / float64(total)
		a.Compares = total
		a.Warm += b.Warm
	}
	slices.SortFunc(w.ByLength, func(a, b LengthSteps) int { return a.Max - b.Max })
}
