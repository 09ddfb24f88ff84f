package chainlist

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/svclab/svclab/sim/iptables"
)

// nameOffset is where a node's name lies from the node: the next malloc
// chunk (iptables strdups the name right after allocating the node).
const nameOffset = 32

// nameLen is the length of a kube-proxy service or endpoint chain's name
// with its terminating NUL: "KUBE-SVC-" and 16 base32 characters.
const nameLen = 26

// nodeSlot is the room a node and its name take in an arena: a cache
// line, which holds nameOffset+nameLen bytes.
const nodeSlot = 64

// endOfList marks the last node's next offset.
const endOfList = ^uint32(0)

// layoutLists builds a list of each of layout's lengths, in its order,
// packing up to NodeBytes/nodeSlot lists into one arena, longest first:
// the j-th list of an arena has its nodes j·nodeSlot into each stride, so
// each list's nodes lie NodeBytes apart over the span its own arena would
// have, and the other lists' nodes between them, never touched while it
// is walked, stand where the payload's other allocations stand in the
// tool's memory. Packed, the partial payload's lists take 231 MB instead
// of 786.
func layoutLists(layout Layout, seed uint64) []*list {
	perArena := layout.NodeBytes / nodeSlot
	longestFirst := make([]int, len(layout.Lengths))
	for i := range longestFirst {
		longestFirst[i] = i
	}
	slices.SortStableFunc(longestFirst, func(a, b int) int { return cmp.Compare(layout.Lengths[b], layout.Lengths[a]) })
	lists := make([]*list, len(layout.Lengths))
	var arena []byte
	for k, i := range longestFirst {
		slot := k % perArena
		if slot == 0 {
			arena = make([]byte, layout.Lengths[i]*layout.NodeBytes)
			touchInOrder(arena)
		}
		lists[i] = newList(arena, slot*nodeSlot, layout.Lengths[i], layout.NodeBytes, seed)
	}
	return lists
}

// touchInOrder writes each page of a fresh arena in address order, as
// the tool's heap is written while it grows, one allocation after the
// other: where the kernel places the pages follows the order of their
// first writes. Linking the lists writes the nodes in name order, which
// would place the pages at random: on this VM such lists took up to 3
// times longer a step between 16,000 and 64,000 chains (at 64,000, 154
// and 73 ns in two runs against 51 and 50 with the pages written in
// order: docs/measurements.md, results/plan-iptables-nft-sync).
func touchInOrder(arena []byte) {
	page := os.Getpagesize()
	for p := 0; p < len(arena); p += page {
		arena[p] = 0xff
	}
}

// list is a chain list laid out as iptables-nft-restore's: node i (in
// insertion order) at base + i·stride in arena, its next node's offset in
// its first 4 bytes, its name at nameOffset.
type list struct {
	arena []byte
	head  uint32
	names [][]byte
	rng   *rand.Rand
}

// newList builds, in arena from base, a list of n chain names, half
// service and half endpoint chains, stride bytes apart, linked in name
// order.
func newList(arena []byte, base, n, stride int, seed uint64) *list {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	l := &list{arena: arena, names: make([][]byte, n), rng: rng}
	for i := range l.names {
		l.names[i] = chainName(rng, i%2 == 0)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(l.names[a], l.names[b]) })
	for k, i := range order {
		next := endOfList
		if k+1 < n {
			next = uint32(base + order[k+1]*stride)
		}
		off := base + i*stride
		binary.LittleEndian.PutUint32(l.arena[off:], next)
		copy(l.arena[off+nameOffset:], l.names[i])
	}
	l.head = uint32(base + order[0]*stride)
	return l
}

// chainName is a random chain name of kube-proxy's form, NUL-terminated.
func chainName(rng *rand.Rand, service bool) []byte {
	const base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	name := []byte("KUBE-SEP-")
	if service {
		name = []byte("KUBE-SVC-")
	}
	for len(name) < nameLen-1 {
		name = append(name, base32[rng.IntN(len(base32))])
	}
	return append(name, 0)
}

// stepTimes are the steps of a list's walks and their time, split as
// sim/iptables.WarmSteps splits them.
type stepTimes struct {
	cold, warm     int64
	coldNs, warmNs float64
}

// timeSteps walks the list to random names' places for about d, timing
// each walk's warm steps (over the nodes one of the iptables.WarmWindow
// walks before also passed: the list's first nodes) apart from its cold
// ones, less clockNs, the cost of a clock read, for each part. The clock
// is read after every walk: a walk of the longest lists takes
// milliseconds.
//
// It first walks the list untimed (warmUp): the tool walks one list for a
// whole payload, so the list's nodes stay as far up the caches as they fit,
// while Measure walks the other lists between two of this one's turns,
// which evicts it (results/iptables-nft-restore/warm-up.txt).
func (l *list) timeSteps(d time.Duration, clockNs float64) stepTimes {
	var t stepTimes
	recent := l.warmUp()
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		name := l.randomName()
		split := iptables.WarmSteps(int64(len(l.names)), recent) // the longest recent walk
		steps, warmNs, coldNs := l.timedFind(name, split)
		warm := min(steps, split)
		t.warm, t.cold = t.warm+warm, t.cold+steps-warm
		t.warmNs += max(0, warmNs-clockNs)
		if steps > warm {
			t.coldNs += max(0, coldNs-clockNs)
		}
		recent[i%iptables.WarmWindow] = steps
	}
	return t
}

// timedFind walks from the head to name's node as
// cache_chain_list_insert does (stopping at the first name not below it)
// and returns the steps, reading the clock when the walk has made split
// steps: the time of the first split steps (or of all, when fewer) and of
// the rest.
func (l *list) timedFind(name []byte, split int64) (steps int64, warmNs, coldNs float64) {
	start := time.Now()
	var mid time.Time
	for off := l.head; off != endOfList; off = binary.LittleEndian.Uint32(l.arena[off:]) {
		if steps == split {
			mid = time.Now()
		}
		steps++
		at := int(off) + nameOffset
		if bytes.Compare(l.arena[at:at+nameLen], name) >= 0 {
			break
		}
	}
	end := time.Now()
	if mid.IsZero() {
		return steps, float64(end.Sub(start).Nanoseconds()), 0
	}
	return steps, float64(mid.Sub(start).Nanoseconds()), float64(end.Sub(mid).Nanoseconds())
}

// randomName is one of the list's names, drawn uniformly: a walk's target.
func (l *list) randomName() []byte { return l.names[l.rng.IntN(len(l.names))] }

// warmUpWalks is how many untimed random walks begin a turn.
const warmUpWalks = 4

// warmUp makes warmUpWalks random walks, untimed, and returns the last
// iptables.WarmWindow walks' steps: the recent walks the first timed walk's
// warm steps are counted against. Random walks leave the list in the caches
// as the tool's own walks leave it: its first nodes warm, its last ones
// seldom passed. A walk of the whole list instead (tried first) left its
// last nodes the warmest of all, and the cold steps past the recent walks'
// reach came out cheaper than the warm ones on the longest lists (112 ns
// against 196 at 256,000 chains); counting the first timed walks against
// such a walk left turns on the longest lists (a walk takes about 25 ms)
// almost no cold step.
func (l *list) warmUp() []int64 {
	recent := make([]int64, iptables.WarmWindow)
	for i := range warmUpWalks {
		recent[i%iptables.WarmWindow], _, _ = l.timedFind(l.randomName(), 0)
	}
	return recent
}

// clockCost is what one clock read costs, in nanoseconds.
func clockCost() float64 {
	const reads = 10000
	start := time.Now()
	var last time.Time
	for range reads {
		last = time.Now()
	}
	return float64(last.Sub(start).Nanoseconds()) / reads
}

// step is the time of a step of each kind, and of any step.
func (t stepTimes) step() (cold, warm, mean float64) {
	if t.cold > 0 {
		cold = t.coldNs / float64(t.cold)
	}
	if t.warm > 0 {
		warm = t.warmNs / float64(t.warm)
	}
	if t.cold+t.warm > 0 {
		mean = (t.coldNs + t.warmNs) / float64(t.cold+t.warm)
	}
	return cold, warm, mean
}
