package chainlist

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"time"
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
		}
		lists[i] = newList(arena, slot*nodeSlot, layout.Lengths[i], layout.NodeBytes, seed)
	}
	return lists
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

// timeSteps walks the list to random names' places for about d and
// returns the time a step took, in nanoseconds.
func (l *list) timeSteps(d time.Duration) float64 {
	steps := 0
	start := time.Now()
	// The clock is read after every walk: a walk of the longest lists
	// takes milliseconds, and a clock read (tens of nanoseconds) is about
	// 1% of the shortest's.
	for time.Since(start) < d {
		steps += l.find(l.names[l.rng.IntN(len(l.names))])
	}
	return float64(time.Since(start).Nanoseconds()) / float64(steps)
}

// find walks from the head to name's node as cache_chain_list_insert
// does (stopping at the first name not below it) and returns the steps.
func (l *list) find(name []byte) int {
	steps := 0
	for off := l.head; off != endOfList; off = binary.LittleEndian.Uint32(l.arena[off:]) {
		steps++
		at := int(off) + nameOffset
		if bytes.Compare(l.arena[at:at+nameLen], name) >= 0 {
			break
		}
	}
	return steps
}
