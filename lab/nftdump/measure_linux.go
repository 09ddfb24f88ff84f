package nftdump

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/results"
)

// Options say what Measure times and where.
type Options struct {
	// Services are the table sizes timed, in synthetic Services (about a
	// chain each: chainsPayload).
	Services []int
	// Rounds is how many times each table's dump is timed (three dumps
	// with nft's buffer and one with 4 KiB a round); a step keeps the
	// rounds' median, fastest and slowest.
	Rounds int
	// Every makes the spread layout: a padding table with every Every-th
	// chain deleted leaves 32/Every free slots on each slab page, which
	// the timed table's chains fill (4: 8 chains to a page, about the
	// spread svclab's own long sweeps reached, results/nft-chain-placement).
	Every int
	// Prefix names the namespaces Measure makes (Prefix-nftdump,
	// Prefix-nftpad): a run's, so that svclab cleanup removes them after a
	// crash.
	Prefix string
}

// DefaultOptions take about a minute (most of it loading the padding
// tables).
var DefaultOptions = Options{Services: []int{12_500, 25_000, 50_000}, Rounds: 3, Every: 4}

// Measure times one step of the chain dump's walk at each of opts.Services'
// tables, packed (results.ChainDumpPacked) and then spread
// (results.ChainDumpSpread): packed first, as a spread load's padding,
// once deleted, leaves its slab pages to be freed.
func Measure(ctx context.Context, opts Options) ([]results.ChainListStep, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	var out []results.ChainListStep
	for _, layout := range []string{results.ChainDumpPacked, results.ChainDumpSpread} {
		for _, n := range opts.Services {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("chain dump walk of %d services (%s): %w", n, layout, err)
			}
			step, err := measureLayout(layout, n, opts)
			if err != nil {
				return nil, fmt.Errorf("chain dump walk of %d services (%s): %w", n, layout, err)
			}
			out = append(out, step)
		}
	}
	return out, nil
}

// check refuses options Measure cannot run.
func (o Options) check() error {
	switch {
	case o.Prefix == "":
		return errors.New("chain dump walk: no namespace prefix (a run's)")
	case o.Rounds < 1 || o.Every < 2 || len(o.Services) == 0:
		return fmt.Errorf("chain dump walk: %d rounds, every %d-th padding chain deleted, %d sizes: want at least 1 round, every 2nd or sparser, 1 size", o.Rounds, o.Every, len(o.Services))
	}
	for _, n := range o.Services {
		if n < 1 {
			return fmt.Errorf("chain dump walk of %d services: want at least 1", n)
		}
	}
	return nil
}

// measureLayout loads the chains of services Services in layout's way
// into a fresh namespace and times their dump.
func measureLayout(layout string, services int, opts Options) (results.ChainListStep, error) {
	payload, chains, err := chainsPayload(services)
	if err != nil {
		return results.ChainListStep{}, err
	}
	if layout == results.ChainDumpSpread {
		pad := opts.Prefix + "-nftpad"
		if err := loadPadding(pad, chains, opts.Every); err != nil {
			return results.ChainListStep{}, errors.Join(err, netns.Delete(pad))
		}
		defer netns.Delete(pad)
	}
	table := opts.Prefix + "-nftdump"
	if err := netns.Create(table); err != nil {
		return results.ChainListStep{}, err
	}
	defer netns.Delete(table)
	if _, err := netns.Output(table, payload, "nft", "-f", "-"); err != nil {
		return results.ChainListStep{}, fmt.Errorf("load %d chains: %w", chains, err)
	}
	step := results.ChainListStep{Chains: chains, Layout: layout}
	err = netns.Do(table, func() error { return timeRounds(&step, opts.Rounds) })
	return step, err
}

// loadPadding makes the namespace name with a padding table whose deleted
// chains leave free slots for chains chains (paddingPayloads).
func loadPadding(name string, chains, every int) error {
	if err := netns.Create(name); err != nil {
		return err
	}
	create, punch := paddingPayloads(chains, every)
	if _, err := netns.Output(name, create, "nft", "-f", "-"); err != nil {
		return fmt.Errorf("load the padding table: %w", err)
	}
	if _, err := netns.Output(name, punch, "nft", "-f", "-"); err != nil {
		return fmt.Errorf("delete every %d-th padding chain: %w", every, err)
	}
	return nil
}

// timeRounds times step's table's dump rounds times: each round's step is
// the 4 KiB dump's time less the median of three with nft's buffer, over
// the steps the kernel walked more.
func timeRounds(step *results.ChainListStep, rounds int) error {
	var perStep []float64
	for range rounds {
		r, err := TimeRound()
		if err != nil {
			return err
		}
		if r.Nft.Chains != step.Chains {
			return fmt.Errorf("the dump carried %d chains, %d loaded", r.Nft.Chains, step.Chains)
		}
		perStep = append(perStep, r.NsPerStep())
		step.ChainsPerMessage = r.Nft.PerMessage()
	}
	slices.Sort(perStep)
	step.NsPerStep, step.MinNsPerStep, step.MaxNsPerStep = perStep[len(perStep)/2], perStep[0], perStep[len(perStep)-1]
	if step.MinNsPerStep <= 0 {
		return fmt.Errorf("a round timed the 4 KiB dump no slower than nft's (%.2f ns a step): the machine swung more than the walk takes", step.MinNsPerStep)
	}
	return nil
}
