package chainlist

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/svclab/svclab/sim/results"
)

// Layout is how one kind of payload's chain list lies in
// iptables-nft-restore 1.8.9's memory, and the lengths Measure times it at.
type Layout struct {
	// Payload is the sync whose payload builds the list:
	// results.ChainListFull or results.ChainListPartial.
	Payload string
	// NodeBytes is the distance in bytes between nodes inserted one after
	// the other: the list node (24 bytes), the name's copy, and what the
	// payload's commands allocate between two new names.
	NodeBytes int
	// Lengths are the list lengths timed, √2 apart, so that the planner
	// interpolates between near neighbours: the step rises steeply where
	// the list's span outgrows a cache, and a coarser grid misplaces that
	// rise.
	Lengths []int
}

// Layouts are the lists Measure times by default, read from the running
// tool with gdb on cache_chain_list_insert's malloc (docs/measurements.md,
// "iptables-nft-restore's chain list"):
//   - a full sync's payload declares every chain, and one declaration's
//     allocations lie between two nodes: 352 bytes (368 of 416 consecutive
//     nodes); 1,000 to 256,000 chains (a few hundred to 128,000 Services at
//     one endpoint each);
//   - kube-proxy's partial sync names the unchanged Services' chains only
//     in the KUBE-SERVICES rules that jump to them, and one rule command's
//     allocations lie between two nodes: 1,808 bytes (191 of 217);
//     1,000 to 128,000 chains (one a Service).
//
// Every list lives at once while Measure runs, packed into shared arenas
// (layoutLists): about 110 MB for the first layout, 231 MB for the second.
var Layouts = []Layout{
	{Payload: results.ChainListFull, NodeBytes: 352, Lengths: halfOctaves(1000, 256000)},
	{Payload: results.ChainListPartial, NodeBytes: 1808, Lengths: halfOctaves(1000, 128000)},
}

// halfOctaves is from, from·√2, 2·from, … up to to, rounded.
func halfOctaves(from, to int) []int {
	var out []int
	for k := 0; ; k++ {
		n := int(math.Round(float64(from) * math.Pow(math.Sqrt2, float64(k))))
		if n > to {
			return out
		}
		out = append(out, n)
	}
}

// Options say how long Measure times each length.
type Options struct {
	// PerLength is the time spent walking at each length, per round.
	PerLength time.Duration
	// Rounds is how many times each length is timed; Measure keeps the
	// mean over them.
	Rounds int
	// Seed seeds the names and the lookups.
	Seed uint64
}

// DefaultOptions take about 20 seconds over Layouts (32 lists; 15 before
// each turn began with its untimed warm-up walks).
var DefaultOptions = Options{PerLength: 40 * time.Millisecond, Rounds: 9, Seed: 1}

// Measure times one step of the chain-list walk on each layout at each of
// its lengths: builds every list, then, opts.Rounds times, walks each list
// in turn from its head to random names' places for opts.PerLength, and
// keeps each list's mean time a step over the rounds: of any step, of a
// cold one and of a warm one (over nodes one of the two walks before
// passed: sim/iptables.WarmSteps, which counts a payload's warm steps by
// the same rule), and the fastest and the slowest round's mean step. The
// rounds interleave the lists so that a machine whose speed drifts (a VM's
// vCPU) spreads its drift over all of them, as it
// spreads over a restore that runs for minutes; the mean, not the median,
// is what such a restore's time averages. Every list lives at once
// (Layouts says how much memory).
func Measure(ctx context.Context, layouts []Layout, opts Options) ([]results.ChainListStep, error) {
	if opts.Rounds < 1 || opts.PerLength <= 0 {
		return nil, fmt.Errorf("chain-list walk: %d rounds of %v: want at least one round of a positive time", opts.Rounds, opts.PerLength)
	}
	var lists []*list
	var out []results.ChainListStep
	for _, layout := range layouts {
		if err := layout.check(); err != nil {
			return nil, err
		}
		lists = append(lists, layoutLists(layout, opts.Seed)...)
		for _, n := range layout.Lengths {
			out = append(out, results.ChainListStep{Chains: n, Layout: layout.Payload, NodeBytes: layout.NodeBytes})
		}
	}
	clockNs := clockCost()
	rounds := float64(opts.Rounds)
	for range opts.Rounds {
		for i, l := range lists {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("chain-list walk of the %s layout at %d chains: %w", out[i].Layout, out[i].Chains, err)
			}
			cold, warm, mean := l.timeSteps(opts.PerLength, clockNs).step()
			out[i].ColdNsPerStep += cold / rounds
			out[i].WarmNsPerStep += warm / rounds
			out[i].NsPerStep += mean / rounds
			keepRoundRange(&out[i], mean)
		}
	}
	return out, nil
}

// keepRoundRange widens step's fastest and slowest round to take in a
// round whose mean step was mean.
func keepRoundRange(step *results.ChainListStep, mean float64) {
	if step.MinNsPerStep == 0 || mean < step.MinNsPerStep {
		step.MinNsPerStep = mean
	}
	step.MaxNsPerStep = max(step.MaxNsPerStep, mean)
}

// check refuses a layout Measure cannot build.
func (l Layout) check() error {
	if l.NodeBytes < nodeSlot {
		return fmt.Errorf("chain-list walk of the %s layout: nodes %d bytes apart, want at least %d (a node and its name)", l.Payload, l.NodeBytes, nodeSlot)
	}
	for _, n := range l.Lengths {
		if n < 2 {
			return fmt.Errorf("chain-list walk of the %s layout at %d chains: want at least 2", l.Payload, n)
		}
		if n*l.NodeBytes > math.MaxUint32 {
			return fmt.Errorf("chain-list walk of the %s layout at %d chains: %d bytes of nodes, want at most 4 GiB", l.Payload, n, n*l.NodeBytes)
		}
	}
	return nil
}
