package cost

import (
	"fmt"
	"math"
	"sync"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/results"
)

// PartialPayload prices the user part of a partial restore that replaces
// the whole table (dataplane.Info.RestoreReplacesTable: iptables-legacy)
// by the partial payload's own rules. The restore parses the payload
// kube-proxy wrote (every KUBE-SERVICES rule, the changed Services'
// chains) in user space and hands the kernel the whole table: in the
// kernel (results/iptables-legacy-restore/partial-composition.txt) the
// user time followed the partial payload's rules (13-14 µs each: the
// cluster-500 mix at 20×, 23,000 partial rules, 0.32 s; one-endpoint
// Services of as many table rules, 55,189, 0.80 s) and the system time
// the table. A calibration's fillers tie the two; a mix has fewer
// KUBE-SERVICES rules for its table (more rules a Service), so read at
// its table it was priced for a partial payload twice its own.
//
// The incremental curve is read at the rules of a calibration payload of
// the table's chains (its ChainComposition, whose PerRule is the kernel's
// price of a table rule), and the partial payload's rules beyond (or
// short of) the calibration's at those chains are priced at PerRule here.
type PartialPayload struct {
	// RulesPerChain and RulesAtNoChains are the calibration's partial
	// payload's rules at a table of C chains: RulesAtNoChains +
	// RulesPerChain·C.
	RulesPerChain   float64 `json:"rules_per_chain"`
	RulesAtNoChains float64 `json:"rules_at_no_chains"`
	// PerRule is the user CPU time of a partial payload's rule, from the
	// calibrated sizes' user times (perRulePrice) at PerRuleAt partial
	// rules and up.
	PerRule   Estimate `json:"per_rule_s"`
	PerRuleAt float64  `json:"per_rule_at_rules"`
}

// RulesAt is the partial payload's rules of a calibration payload of
// chains chains.
func (pp PartialPayload) RulesAt(chains float64) float64 {
	return pp.RulesAtNoChains + pp.RulesPerChain*chains
}

// partialCompositionOf is how an incremental sync's curve is read when the
// dataplane's restore replaces the whole table and the calibration's
// points (synthetic fillers of one family) timed the tool's user CPU:
// the table by its chains, each rule beyond a calibration payload's at
// those chains at the kernel's price of a table rule, and the partial
// payload's rules apart (nil, nil otherwise, or when they cannot be made:
// warned in dm).
func partialCompositionOf(dm *DataplaneModel, form syncForm, points []results.Point) (*ChainComposition, *PartialPayload) {
	if !form.partial || !form.replacesTable || !form.oneFamily {
		return nil, nil
	}
	timed := userTimedIncrementals(points)
	if len(timed) == 0 {
		return nil, nil
	}
	cc, pp, err := newPartialComposition(dm.Mode, pointEndpoints(dm.Mode, timed[len(timed)-1]), timed)
	if err != nil {
		dm.Warnings = append(dm.Warnings, fmt.Sprintf("%s %s: %v: read at the table's rules", dm.Dataplane, MetricSyncIncremental, err))
		return nil, nil
	}
	return cc, pp
}

// userTimedIncrementals are the points (ascending in services) whose
// incremental sync timed the tool's user and system CPU, of at least
// perRuleMinRules rules.
func userTimedIncrementals(points []results.Point) []results.Point {
	var out []results.Point
	for _, p := range points {
		if p.SyncIncrementalS > 0 && p.SyncIncrementalUserS > 0 && p.SyncIncrementalCPUS > p.SyncIncrementalUserS && p.Rules >= perRuleMinRules {
			out = append(out, p)
		}
	}
	return out
}

// newPartialComposition fits the two prices on timed (ascending) of
// mode's fillers of endpoints endpoints a Service: the user time against
// each size's partial payload rules, the system time against its table
// rules, made a price per kernel table entry (kernelEntriesPerRule).
func newPartialComposition(mode string, endpoints int, timed []results.Point) (*ChainComposition, *PartialPayload, error) {
	table, err := fillerChains(mode, endpoints)
	if err != nil {
		return nil, nil, err
	}
	if table == nil {
		return nil, nil, fmt.Errorf("%s fillers of %d endpoints have no chains a Service", mode, endpoints)
	}
	pp, err := fillerPartialPayload(mode, endpoints)
	if err != nil {
		return nil, nil, err
	}
	var user, kernel []MeasuredSync
	for _, p := range timed {
		partial, err := partialPayloadRules(mode, p.Services, endpoints)
		if err != nil {
			return nil, nil, err
		}
		user = append(user, MeasuredSync{Rules: float64(partial), Seconds: p.SyncIncrementalUserS})
		kernel = append(kernel, MeasuredSync{Rules: float64(p.Rules), Seconds: p.SyncIncrementalCPUS - p.SyncIncrementalUserS})
	}
	user, kernel = largestTwo(user), largestTwo(kernel)
	pp.PerRule, pp.PerRuleAt = perRulePrice(user), user[0].Rules
	table.PerRule, table.PerRuleAt = perRulePrice(kernel).Scale(1/kernelEntriesPerRule(table.RulesPerChain)), kernel[0].Rules
	return table, &pp, nil
}

// fillerSamples are mode's fillers of endpoints endpoints a Service at
// fillersSmall and fillersLarge Services: their partial payloads' rules
// and their tables.
type fillerSamples struct {
	partial [2]float64
	table   [2]Size
}

// fillerSamplesOf renders and counts them.
func fillerSamplesOf(mode string, endpoints int) (fillerSamples, error) {
	var f fillerSamples
	for i, n := range [2]int{fillersSmall, fillersLarge} {
		partial, err := partialPayloadRules(mode, n, endpoints)
		if err != nil {
			return f, err
		}
		table, err := countsOf(mode, n, endpoints)
		if err != nil {
			return f, err
		}
		f.partial[i], f.table[i] = float64(partial), table
	}
	return f, nil
}

// fillerPartialPayload is the partial payload's rules of mode's fillers
// of endpoints endpoints a Service against their table's chains, unpriced
// (PerRule zero).
func fillerPartialPayload(mode string, endpoints int) (PartialPayload, error) {
	f, err := fillerSamplesOf(mode, endpoints)
	if err != nil {
		return PartialPayload{}, err
	}
	if f.table[1].Chains == f.table[0].Chains {
		return PartialPayload{}, fmt.Errorf("%s fillers of %d endpoints have no chains a Service", mode, endpoints)
	}
	pp := PartialPayload{RulesPerChain: (f.partial[1] - f.partial[0]) / float64(f.table[1].Chains-f.table[0].Chains)}
	pp.RulesAtNoChains = f.partial[0] - pp.RulesPerChain*float64(f.table[0].Chains)
	return pp, nil
}

// FillerPartial is a calibration's fillers' partial payload against their
// table's rules: AtNoRules + PerTableRule·rules. An incremental curve read
// at a table's rules alone prices the partial payload of a filler table of
// as many rules.
type FillerPartial struct {
	PerTableRule float64 `json:"per_table_rule"`
	AtNoRules    float64 `json:"at_no_rules"`
}

// RulesAt is the partial payload's rules of a filler table of rules rules.
func (f FillerPartial) RulesAt(rules float64) float64 {
	return f.AtNoRules + f.PerTableRule*rules
}

// unpricedPartialOf is, for an incremental sync's curve that could price
// its partial payload apart (partialCompositionOf) but whose calibration
// did not time the tool's user CPU (every calibration recorded before
// 2026-12-07, the embedded default among them), the calibration fillers'
// partial payload against their table's rules: predictions warn when a
// payload's differs (unpricedPartialWarning). Nil otherwise.
func unpricedPartialOf(mode string, form syncForm, points []results.Point) *FillerPartial {
	if !form.partial || !form.replacesTable || !form.oneFamily || len(points) == 0 || len(userTimedIncrementals(points)) > 0 {
		return nil
	}
	f, err := fillerSamplesOf(mode, largestPointEndpoints(mode, points))
	if err != nil || f.table[1].Rules == f.table[0].Rules {
		return nil
	}
	fp := FillerPartial{PerTableRule: (f.partial[1] - f.partial[0]) / float64(f.table[1].Rules-f.table[0].Rules)}
	fp.AtNoRules = f.partial[0] - fp.PerTableRule*float64(f.table[0].Rules)
	return &fp
}

// unpricedPartialDiffers is how far (a share of the fillers') a payload's
// partial rules must be from a calibration's fillers' for
// unpricedPartialWarning to warn, and unpricedPartialMinRules by how many
// rules at least: at the 12-14 µs of user time a partial rule took in the
// kernel (results/iptables-legacy-restore/partial-composition.txt) fewer
// are a few milliseconds, within a sync's own scatter.
const (
	unpricedPartialDiffers  = 0.1
	unpricedPartialMinRules = 1000
)

// unpricedPartialWarning warns, for a curve with UnpricedPartial, that a
// restore's partial payload differs from the partial payload of the
// calibration's filler table of as many rules (which the curve, read at
// the table's rules, prices) and is not priced apart ("" when it does not
// differ, or when there are several restores or their partial rules are
// not known).
func (c SyncCurve) unpricedPartialWarning(dataplaneName string, restores []restorePayload) string {
	if c.UnpricedPartial == nil || len(restores) != 1 || restores[0].partialRules <= 0 {
		return ""
	}
	r := restores[0]
	fillers := c.UnpricedPartial.RulesAt(r.rules)
	if diff := math.Abs(r.partialRules - fillers); fillers <= 0 || diff <= unpricedPartialDiffers*fillers || diff < unpricedPartialMinRules {
		return ""
	}
	likely := "overpriced"
	if r.partialRules > fillers {
		likely = "underpriced"
	}
	return fmt.Sprintf("%s %s: its partial payload has %.0f rules where the calibration's fillers of a %.0f-rule table have %.0f, but the calibration did not time the restore's user CPU, so the payload is not priced apart from the table and the sync is likely %s (`svclab plan calibrate` times it)",
		dataplaneName, c.Metric, r.partialRules, r.rules, fillers, likely)
}

// largestTwo is the two largest of sizes (ascending), or the one. The
// prices are read there, not at the smallest sizes as a full sync's
// extra rules are: the rusage's split of a process's CPU time between
// user and system is sampled at the clock's tick, so a sync of tens of
// milliseconds splits by a few ticks, and the user time of a partial
// rule grows with the table (7 to 8 µs at 40,000 chains in the
// calibration of results/plan-legacy-incremental, 13 to 14 µs at 93,000 in
// results/iptables-legacy-restore/partial-composition.txt: each
// KUBE-SERVICES rule's jump finds its chain through libiptc's index).
func largestTwo(sizes []MeasuredSync) []MeasuredSync {
	return sizes[max(0, len(sizes)-2):]
}

// kernelEntriesPerRule is the kernel's table entries per rule of a payload
// of rulesPerChain rules a chain: iptables-legacy's table is one blob of
// entries, one a rule and two a user chain (its head, which names it, and
// its closing RETURN). A calibration's system time per rule is made a
// price per entry by it: a rule added to a chain adds one entry (in the
// kernel, results/iptables-legacy-restore/partial-composition.txt: a
// second rule in each endpoint chain added 1.7 µs of system time each).
func kernelEntriesPerRule(rulesPerChain float64) float64 {
	return 1 + 2/rulesPerChain
}

// partialSample is the most services partialPayloadRules renders; beyond,
// it extrapolates from partialSample/2 and partialSample (a partial
// payload grows by the same KUBE-SERVICES rules with each Service).
const partialSample = 200

// partialPayloadRules is the rules of kube-proxy's partial payload (one
// family's) that rewrites the middle of n synthetic Services of m
// endpoints, as a sweep's incremental sync restores it (0 for a mode whose
// payload is not iptables-restore text).
func partialPayloadRules(mode string, n, m int) (int, error) {
	if mode != string(dataplane.ModeIPTables) {
		return 0, nil
	}
	if n <= partialSample {
		return renderedPartialRules(n, m)
	}
	half, err := renderedPartialRules(partialSample/2, m)
	if err != nil {
		return 0, err
	}
	full, err := renderedPartialRules(partialSample, m)
	if err != nil {
		return 0, err
	}
	perService := float64(full-half) / float64(partialSample-partialSample/2)
	return full + int(perService*float64(n-partialSample)+0.5), nil
}

// partialRulesRendered memoizes renderedPartialRules by services and
// endpoints.
var partialRulesRendered sync.Map

// renderedPartialRules renders the partial payload partialPayloadRules
// counts (partialChainList's).
func renderedPartialRules(n, m int) (int, error) {
	key := [2]int{n, m}
	if r, ok := partialRulesRendered.Load(key); ok {
		return r.(int), nil
	}
	mdl, err := syntheticModel(n, m)
	if err != nil {
		return 0, err
	}
	_, rules, err := partialChainList(mdl, render.Config{})
	if err != nil {
		return 0, fmt.Errorf("%d endpoints: %w", m, err)
	}
	partialRulesRendered.Store(key, rules)
	return rules, nil
}
