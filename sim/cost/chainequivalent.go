package cost

import (
	"fmt"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// ChainComposition evaluates a full sync whose time grows with the square
// of the payload's chains (dataplane.Info.FullSyncQuadratic: libiptc's
// chain index, rebuilt by walking every chain) at a payload's chains, not
// its rules, when the curve was fitted on synthetic fillers of one
// composition. A calibration's fillers have a fixed number of rules a
// chain (2.5 for one endpoint a Service); a cluster's mix has more (every
// endpoint's chain holds two rules and adds one to its Service's chain;
// ports, source ranges and NodePorts add rules, not chains). In the kernel
// (results/iptables-legacy-restore/composition.txt) a restore of the
// cluster-500 mix's IPv4 payload at 20× (93,260 chains, 275,877 rules)
// took 1.06× a calibration payload of as many chains (233,134 rules)
// and 0.74× one of as many rules (110,356 chains). So the curve is read at
// the rules of a calibration payload of the restore's chains, and the
// rules beyond (or short of) those are priced apart, each at PerRule.
type ChainComposition struct {
	// RulesPerChain and RulesAtNoChains are the calibration payload's
	// rules at C chains: RulesAtNoChains + RulesPerChain·C.
	RulesPerChain   float64 `json:"rules_per_chain"`
	RulesAtNoChains float64 `json:"rules_at_no_chains"`
	// PerRule is the price of a rule beyond the calibration's at as many
	// chains, from the two smallest calibrated sizes of at least
	// perRuleMinRules rules, where the chain index costs least
	// (perRulePrice). In the kernel a rule added to each endpoint's chain
	// cost 2.8 to 11 µs from 10,000 to 93,000 chains; a calibration's
	// smallest sizes price it at 5 to 10 µs. On an incremental sync's
	// curve (partialCompositionOf) it is the kernel's price of a table
	// rule instead: its user-space part is priced by the partial payload.
	PerRule Estimate `json:"per_rule_s"`
	// PerRuleAt is the smallest calibrated size PerRule is of, in rules.
	PerRuleAt float64 `json:"per_rule_at_rules"`
}

// perRuleMinRules is the smallest calibrated size PerRule is taken at:
// below it the restore's fixed cost (a process, reading the tables) is
// most of the time.
const perRuleMinRules = 1000

// RulesAt is the rules of a calibration payload of chains chains.
func (cc ChainComposition) RulesAt(chains float64) float64 {
	return cc.RulesAtNoChains + cc.RulesPerChain*chains
}

// newChainComposition is the composition of mode's synthetic fillers of
// endpoints endpoints a Service, with PerRule from curve's measured
// medians; nil when the curve measured no size of perRuleMinRules rules.
func newChainComposition(mode string, endpoints int, curve SyncCurve) (*ChainComposition, error) {
	cc, err := fillerChains(mode, endpoints)
	if cc == nil || err != nil {
		return nil, err
	}
	var sizes []MeasuredSync
	for _, m := range curve.Measured {
		if m.Rules >= perRuleMinRules && m.Seconds > 0 {
			sizes = append(sizes, m)
		}
	}
	if len(sizes) == 0 {
		return nil, nil
	}
	cc.PerRule, cc.PerRuleAt = perRulePrice(sizes), sizes[0].Rules
	return cc, nil
}

// fillerChains is the composition of mode's synthetic fillers of
// endpoints endpoints a Service, without a price (nil when a Service adds
// no chain).
func fillerChains(mode string, endpoints int) (*ChainComposition, error) {
	small, err := countsOf(mode, fillersSmall, endpoints)
	if err != nil {
		return nil, fmt.Errorf("%s fillers of %d endpoints: %w", mode, endpoints, err)
	}
	large, err := countsOf(mode, fillersLarge, endpoints)
	if err != nil {
		return nil, fmt.Errorf("%s fillers of %d endpoints: %w", mode, endpoints, err)
	}
	if large.Chains == small.Chains {
		return nil, nil
	}
	cc := ChainComposition{RulesPerChain: float64(large.Rules-small.Rules) / float64(large.Chains-small.Chains)}
	cc.RulesAtNoChains = float64(small.Rules) - cc.RulesPerChain*float64(small.Chains)
	return &cc, nil
}

// fillersSmall and fillersLarge are the two sizes, in Services, whose
// fillers' counts give their composition's lines.
const fillersSmall, fillersLarge = 1000, 2000

// perRulePrice is what a rule costs where the chain index is cheap, from
// the two smallest of sizes (ascending): the median of their seconds a
// rule and the slope between them, its interval spanning the three (one
// noisy load of the smallest size moves only a bound). One size gives its
// seconds a rule, without an interval.
func perRulePrice(sizes []MeasuredSync) Estimate {
	first := sizes[0].Seconds / sizes[0].Rules
	if len(sizes) < 2 {
		return exact(first)
	}
	second := sizes[1].Seconds / sizes[1].Rules
	slope := (sizes[1].Seconds - sizes[0].Seconds) / (sizes[1].Rules - sizes[0].Rules)
	three := []float64{first, second, slope}
	slices.Sort(three)
	return Estimate{Value: three[1], Lo: three[0], Hi: three[2]}.NonNegative()
}

// restorePayload is one restore's payload: its rules, its chains when
// known (0: not known, read at its rules), and for a partial sync the
// rules of the partial payload the tool reads (0: not known).
type restorePayload struct {
	rules, chains, partialRules float64
}

// CompositionPrice is how a sync priced by chains read its curve, summed
// over its restores: the calibration payload's rules at their chains, and
// the price of the rules beyond those (negative: fewer).
type CompositionPrice struct {
	EquivalentRules float64  `json:"equivalent_rules"`
	ExtraRules      float64  `json:"extra_rules"`
	ExtraSeconds    Estimate `json:"extra_rules_s"`
	// Partial is the partial payload's price (a curve with a
	// PartialPayload; nil otherwise).
	Partial *PartialPayloadPrice `json:"partial_payload,omitempty"`
}

// PartialPayloadPrice is how a partial sync's payload was priced (summed
// over its restores): the calibration's partial rules at the table's
// chains, and the price of the rules beyond those (negative: fewer).
type PartialPayloadPrice struct {
	EquivalentRules float64  `json:"equivalent_rules"`
	ExtraRules      float64  `json:"extra_rules"`
	ExtraSeconds    Estimate `json:"extra_rules_s"`
}

// compositionDiffers is the share of a payload's rules beyond (or short
// of) the calibration's at its chains from which a sync says it was read
// by chains: below it the payload is of the calibration's composition
// (a holdout's count their jump rules apart) and reads as before.
const compositionDiffers = 0.01

// Differs says the payloads' rules a chain differ from the calibration's
// (compositionDiffers).
func (cp *CompositionPrice) Differs() bool {
	return cp != nil && math.Abs(cp.ExtraRules) > compositionDiffers*(cp.EquivalentRules+cp.ExtraRules)
}

// PartialDiffers says the partial payloads' rules differ from the
// calibration's at the table's chains (compositionDiffers).
func (cp *CompositionPrice) PartialDiffers() bool {
	return cp != nil && cp.Partial != nil && math.Abs(cp.Partial.ExtraRules) > compositionDiffers*(cp.Partial.EquivalentRules+cp.Partial.ExtraRules)
}

// atPayloads is the curve's sync time for restores of these payloads (one
// sync of a payload per IP family; the bounds add, as the restores share
// the fit): read at their rules, or, with a chain composition and chains
// known, at the rules of a calibration payload of as many chains plus the
// extra rules' price (returned, nil otherwise). The rules it was read at
// are returned too (for the extrapolation).
func (c SyncCurve) atPayloads(restores []restorePayload) (Estimate, []float64, *CompositionPrice) {
	sum := exact(0)
	read := make([]float64, len(restores))
	var price *CompositionPrice
	for i, r := range restores {
		read[i] = r.rules
		if c.Composition == nil || r.chains <= 0 {
			sum = sum.Plus(c.At(r.rules))
			continue
		}
		eq := max(c.Composition.RulesAt(r.chains), 1)
		extra := r.rules - eq
		read[i] = eq
		if price == nil {
			price = &CompositionPrice{}
		}
		price.EquivalentRules += eq
		price.ExtraRules += extra
		price.ExtraSeconds = price.ExtraSeconds.Plus(signedScale(c.Composition.PerRule, extra))
		sum = sum.Plus(c.At(eq))
		if c.Partial != nil && r.partialRules > 0 {
			price.Partial = price.Partial.plus(*c.Partial, r)
		}
	}
	if price != nil {
		sum = sum.Plus(price.ExtraSeconds)
		if price.Partial != nil {
			sum = sum.Plus(price.Partial.ExtraSeconds)
		}
	}
	return sum, read, price
}

// plus is pp with one restore's partial payload priced by its table's
// chains added (pp nil: the first).
func (pp *PartialPayloadPrice) plus(price PartialPayload, r restorePayload) *PartialPayloadPrice {
	out := PartialPayloadPrice{}
	if pp != nil {
		out = *pp
	}
	eq := max(price.RulesAt(r.chains), 1)
	out.EquivalentRules += eq
	out.ExtraRules += r.partialRules - eq
	out.ExtraSeconds = out.ExtraSeconds.Plus(signedScale(price.PerRule, r.partialRules-eq))
	return &out
}

// signedScale is e times f, its bounds swapped for a negative f.
func signedScale(e Estimate, f float64) Estimate {
	if f >= 0 {
		return e.Scale(f)
	}
	return Estimate{Value: e.Value * f, Lo: e.Hi * f, Hi: e.Lo * f, NoInterval: e.NoInterval}
}

// largestPointEndpoints is the endpoints a Service of the calibration's
// fillers, read at its largest point (points not empty).
func largestPointEndpoints(mode string, points []results.Point) int {
	largest := points[0]
	for _, p := range points {
		if p.Services > largest.Services {
			largest = p
		}
	}
	return pointEndpoints(mode, largest)
}

// chainCompositionOf is the composition a full sync's curve is read by,
// when form says the tool's time is quadratic in chains and the points
// are synthetic fillers of one IP family (nil otherwise, or when it
// cannot be made: warned in dm).
func chainCompositionOf(dm *DataplaneModel, form syncForm, points []results.Point, curve SyncCurve) *ChainComposition {
	if !form.quadratic || !form.oneFamily || form.partial || len(points) == 0 {
		return nil
	}
	cc, err := newChainComposition(dm.Mode, largestPointEndpoints(dm.Mode, points), curve)
	if err != nil {
		dm.Warnings = append(dm.Warnings, fmt.Sprintf("%s %s: %v: read at the payload's rules", dm.Dataplane, curve.Metric, err))
		return nil
	}
	return cc
}
