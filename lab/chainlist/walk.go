package chainlist

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/svclab/svclab/sim/results"
)

// NodeStride is the distance in bytes between consecutive nodes of
// iptables-nft-restore 1.8.9's chain list, allocated one per chain
// declaration: the list node (24 bytes), the name's copy, and the
// command, table and chain copies each declaration allocates in between.
// Read from the running tool (gdb on cache_chain_list_insert's malloc:
// 368 of 416 consecutive nodes 352 bytes apart; docs/measurements.md).
const NodeStride = 352

// nameOffset is where a node's name lies from the node: the next malloc
// chunk (iptables strdups the name right after allocating the node).
const nameOffset = 32

// nameLen is the length of a kube-proxy service or endpoint chain's name
// with its terminating NUL: "KUBE-SVC-" and 16 base32 characters.
const nameLen = 26

// endOfList marks the last node's next offset.
const endOfList = ^uint32(0)

// Lengths are the list lengths Measure times by default: from 1,000
// chains (a few hundred Services) to 256,000 (128,000 Services), doubling,
// so that the planner interpolates between neighbours.
var Lengths = []int{1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000}

// Options say how long Measure times each length.
type Options struct {
	// PerLength is the time spent walking at each length, per round.
	PerLength time.Duration
	// Rounds is how many times each length is timed; the sample is the
	// median.
	Rounds int
	// Seed seeds the names and the lookups.
	Seed uint64
}

// DefaultOptions take about 6 seconds over Lengths.
var DefaultOptions = Options{PerLength: 60 * time.Millisecond, Rounds: 9, Seed: 1}

// Measure times one step of the chain-list walk at each length: builds
// every length's list, then, opts.Rounds times, walks each list in turn
// from its head to random names' places for opts.PerLength, and keeps
// each length's mean time a step over the rounds. The rounds interleave
// the lengths so that a machine whose speed drifts (a VM's vCPU) spreads
// its drift over all of them, as it spreads over a restore that runs for
// minutes; the mean, not the median, is what such a restore's time
// averages. Every list lives at once: NodeStride bytes a chain, 180 MB
// over Lengths.
func Measure(ctx context.Context, lengths []int, opts Options) ([]results.ChainListStep, error) {
	if opts.Rounds < 1 || opts.PerLength <= 0 {
		return nil, fmt.Errorf("chain-list walk: %d rounds of %v: want at least one round of a positive time", opts.Rounds, opts.PerLength)
	}
	lists := make([]*list, len(lengths))
	for i, n := range lengths {
		if n < 2 {
			return nil, fmt.Errorf("chain-list walk at %d chains: want at least 2", n)
		}
		lists[i] = newList(n, opts.Seed)
	}
	sums := make([]float64, len(lengths))
	for range opts.Rounds {
		for i, l := range lists {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("chain-list walk at %d chains: %w", lengths[i], err)
			}
			sums[i] += l.timeSteps(opts.PerLength)
		}
	}
	out := make([]results.ChainListStep, len(lengths))
	for i, n := range lengths {
		out[i] = results.ChainListStep{Chains: n, NsPerStep: sums[i] / float64(opts.Rounds)}
	}
	return out, nil
}

// list is a chain list laid out as iptables-nft-restore's: node i (in
// declaration order) at i·NodeStride in arena, its next node's offset in
// its first 4 bytes, its name at nameOffset.
type list struct {
	arena []byte
	head  uint32
	names [][]byte
	rng   *rand.Rand
}

// newList builds a list of n chain names, half service and half endpoint
// chains, linked in name order.
func newList(n int, seed uint64) *list {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	l := &list{arena: make([]byte, n*NodeStride), names: make([][]byte, n), rng: rng}
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
			next = uint32(order[k+1] * NodeStride)
		}
		off := i * NodeStride
		binary.LittleEndian.PutUint32(l.arena[off:], next)
		copy(l.arena[off+nameOffset:], l.names[i])
	}
	l.head = uint32(order[0] * NodeStride)
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
	for time.Since(start) < d {
		for range 16 {
			steps += l.find(l.names[l.rng.IntN(len(l.names))])
		}
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
