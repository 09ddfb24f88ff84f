package cost

import (
	"fmt"
	"math"

	"github.com/svclab/svclab/sim/results"
)

// ChainDumpPrice prices the kernel's walk through a table's chains while
// nft dumps them before a change (dataplane.Info.ChainDump): the kernel
// resumes the dump for every netlink message by walking the chain list
// from its start (ChainDumpSteps), and a step's cost depends on how the
// chain objects lie in memory, about 10 ns packed and several times that
// spread over more slab pages (results/nft-chain-placement). A sync curve
// fitted with a price fits the rest of the sync and adds the walk priced
// at the packed layout's step (its value) up to the spread layout's
// slowest round (its interval's upper end): where a node's chains lie
// cannot be known from its ruleset.
type ChainDumpPrice struct {
	Packed []results.ChainListStep `json:"packed"`
	// Spread is empty when the probe timed only the packed layout: the
	// interval's upper end is then the packed layout's slowest round.
	Spread []results.ChainListStep `json:"spread,omitempty"`
}

// newChainDumpPrice is the price of walk's dump steps (results.Meta.
// ChainDumpWalk), or nil without a packed step.
func newChainDumpPrice(walk []results.ChainListStep) *ChainDumpPrice {
	packed := newChainListPrice(walk, results.ChainDumpPacked)
	if packed == nil || packed.Layout != results.ChainDumpPacked || !dumpStepsComplete(packed.Steps) {
		return nil
	}
	p := &ChainDumpPrice{Packed: packed.Steps}
	if spread := newChainListPrice(walk, results.ChainDumpSpread); spread != nil && spread.Layout == results.ChainDumpSpread && dumpStepsComplete(spread.Steps) {
		p.Spread = spread.Steps
	}
	return p
}

// dumpStepsComplete says whether every step has the chains a message
// holds and its rounds' range, which pricing needs.
func dumpStepsComplete(steps []results.ChainListStep) bool {
	for _, s := range steps {
		if s.ChainsPerMessage < 1 || s.MinNsPerStep <= 0 || s.MaxNsPerStep < s.MinNsPerStep {
			return false
		}
	}
	return len(steps) > 0
}

// ChainDumpSteps is the list steps the kernel walks to resume a dump of
// chains chains sent perMessage to a message: before message i (from 0) it
// passes the i·perMessage chains already sent, and once more all of them
// to find that none is left. lab/nftdump checks it against the steps of
// the kernel's own dumps (within 2%: the kernel fills its first message
// before it knows the reader's buffer, a few chains, which this leaves
// out).
func ChainDumpSteps(chains int, perMessage float64) float64 {
	if chains <= 0 || perMessage < 1 {
		return 0
	}
	messages := math.Ceil(float64(chains) / perMessage)
	return perMessage*messages*(messages-1)/2 + float64(chains)
}

// seconds is the walk's time for a dump of chains chains, with its
// interval: packed step (fastest round to the mean), up to the spread
// layout's slowest round.
func (p *ChainDumpPrice) seconds(chains int) Estimate {
	if p == nil || chains <= 0 {
		return exact(0)
	}
	packed := &ChainListPrice{Steps: p.Packed}
	c := float64(chains)
	steps := ChainDumpSteps(chains, packed.stepAt(c, func(s results.ChainListStep) float64 { return s.ChainsPerMessage }))
	slowest := packed
	if len(p.Spread) > 0 {
		slowest = &ChainListPrice{Steps: p.Spread}
	}
	ns := func(price *ChainListPrice, of func(results.ChainListStep) float64) float64 {
		return steps * price.stepAt(c, of) / 1e9
	}
	e := Estimate{
		Value: ns(packed, func(s results.ChainListStep) float64 { return s.NsPerStep }),
		Lo:    ns(packed, func(s results.ChainListStep) float64 { return s.MinNsPerStep }),
		Hi:    ns(slowest, func(s results.ChainListStep) float64 { return s.MaxNsPerStep }),
	}
	e.Lo, e.Hi = min(e.Lo, e.Value), max(e.Hi, e.Value)
	return e
}

// beyond says whether chains is more than the longest list timed.
func (p *ChainDumpPrice) beyond(chains int) bool {
	return p != nil && chains > p.Packed[len(p.Packed)-1].Chains
}

// pointChains is the chains of a calibration point's ruleset: its
// services, with the endpoints per service that give its recorded rules.
func pointChains(mode string, p results.Point) (int, error) {
	s, err := countsOf(mode, p.Services, pointEndpoints(mode, p))
	return s.Chains, err
}

// unpricedDumpWarning warns when the incremental sync of a dataplane whose
// tool dumps the kernel's chains before a change (dataplane.Info.
// ChainDump) is predicted past the largest calibrated ruleset without the
// dump's walk priced: the calibration did not time it (meta.json
// chain_dump_walk), so the fitted form leaves out a walk of about C²/2k
// steps that grows faster than it.
func unpricedDumpWarning(name string, s *SyncPrediction) []string {
	info, _ := modelled(name)
	if !info.ChainDump || s == nil || s.ChainDump != nil || s.Extrapolation <= 1 {
		return nil
	}
	return []string{fmt.Sprintf("%s incremental sync predicted at %.2g× the largest calibrated ruleset without the kernel's chain dump walk: "+
		"nft lists the table's chains before every change, and the kernel walks about C²/2k chain steps for C chains in messages of k "+
		"(results/nft-chain-placement), which the fitted form does not grow with; this calibration did not time a step of that walk "+
		"(meta.json chain_dump_walk: sweeps with sync probes time it since 2026-12-06, svclab plan calibrate's among them), so take "+
		"the sync as a lower bound or calibrate again", name, s.Extrapolation)}
}
