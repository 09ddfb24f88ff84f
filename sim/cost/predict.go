package cost

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/scenario"
)

// Limits of a Query: a /12 service CIDR holds about a million ClusterIPs.
const (
	MaxQueryServices  = 1_000_000
	MaxQueryEndpoints = 100_000
)

// Query is a cluster to predict the cost of.
type Query struct {
	Services            int     `json:"services"`
	EndpointsPerService int     `json:"endpoints_per_service"`
	NewConnPerSec       float64 `json:"new_conn_per_s"`
	// Dataplane restricts the prediction to one dataplane ("" = all).
	Dataplane string `json:"dataplane,omitempty"`
	// Position is where the services that new connections go to sit in
	// KUBE-SERVICES: uniform (default: connections spread over all
	// services, (N+1)/2 rules walked on average), last (the worst case, N),
	// middle ((N+1)/2) or first (1). Percentiles are those of connections
	// to a service at that many rules: uniform's p99 is the p99 at the
	// mean position, not over a mix of positions.
	Position string `json:"position"`
	// Composition, when set, is a real cluster's rendered ruleset (svclab
	// plan --objects): sizes, syncs and memory come from it, and the
	// lookup walks its KUBE-SERVICES rules; Services is its service count.
	Composition *Composition `json:"composition,omitempty"`
	// ChurnPerSec is the endpoint changes per second the cluster sees and
	// MinSyncPeriodS kube-proxy's --min-sync-period in seconds (0: 1 s,
	// the default): they give the network programming latency.
	ChurnPerSec    float64 `json:"churn_per_s,omitempty"`
	MinSyncPeriodS float64 `json:"min_sync_period_s,omitempty"`
	// ChurnKind is what the churn's changes are: scenario.BatchEndpoints
	// ("" too) or scenario.BatchServices (Service creations). A sync's
	// cost per further change comes from a calibration that batched the
	// same kind.
	ChurnKind string `json:"churn_kind,omitempty"`
}

// CostPrediction is one per-connection cost.
type CostPrediction struct {
	// Added is what the service lookup adds: evaluations × cost per
	// evaluation (LinearWalk), or zero up to the growth the calibration
	// cannot rule out (MapLookup).
	Added Estimate `json:"added"`
	// Total is the whole cost as the calibration lab measured it (base +
	// Added), e.g. the whole connect time.
	Total Estimate `json:"total"`
	// PerEvaluation is the cost of one rule walked (LinearWalk only): the
	// line's slope, or, where a walk probe prices the walk beyond the
	// calibration, Added over the rules walked.
	PerEvaluation *Estimate `json:"per_evaluation,omitempty"`
	// R2 is the line's R² (LinearWalk only); Points the calibration points.
	R2     float64 `json:"r2,omitempty"`
	Points int     `json:"points"`
	// Extrapolation, set when lookup probes measured the curve past the
	// calibration's points (a map lookup's uniform p50), is the query's
	// services over the largest probe; else the Prediction's holds.
	Extrapolation float64 `json:"extrapolation,omitempty"`
	// BetweenMedians says the cost was read off the calibration's medians,
	// its line fitting them poorly (CostCurve.Medians): between the two
	// that bracket it, or grown from the largest (by the line, or by the
	// walk probe).
	BetweenMedians bool `json:"between_medians,omitempty"`
}

// SyncPrediction is a sync time at the predicted ruleset size.
type SyncPrediction struct {
	Seconds Estimate `json:"seconds"`
	Form    string   `json:"form"`
	R2      float64  `json:"r2"`
	Points  int      `json:"points"`
	// Extrapolation is the ruleset's rules over the largest calibrated
	// ruleset; Beyond is set above Options.BeyondFactor.
	Extrapolation float64 `json:"extrapolation"`
	Beyond        bool    `json:"beyond_calibration"`
	// ChainList is the restore tool's chain-list walk within Seconds, when
	// priced on the calibration's machine (SyncCurve.ChainList).
	ChainList *Estimate `json:"chain_list_s,omitempty"`
	// ChainDump is the kernel's walk through the chains it dumps to nft
	// within Seconds, when priced on the calibration's machine
	// (SyncCurve.ChainDump): its value for chains lying packed, its
	// interval up to chains spread over four times the pages.
	ChainDump *Estimate `json:"chain_dump_s,omitempty"`
	// AnonymousSets is, within Seconds, the kernel's walks per anonymous
	// set (an nftables full sync's) or what a transaction pays for each
	// set of the table (an incremental sync's), when priced on the
	// calibration's machine (SyncCurve.AnonymousSets).
	AnonymousSets *Estimate `json:"anonymous_sets_s,omitempty"`
	// RecentLists is xt_recent's walks of its lists within Seconds, one per
	// rule with a recent match loaded or unloaded (RecentSyncSteps), when
	// the calibration timed a step (DataplaneModel.Recent).
	RecentLists *Estimate `json:"recent_lists_s,omitempty"`
	// Composition is how a full sync quadratic in chains read its curve at
	// the payload's chains, and priced the rules beyond the calibration's
	// at as many chains, within Seconds (SyncCurve.Composition).
	Composition *CompositionPrice `json:"chain_composition,omitempty"`
}

// Prediction is what a Query costs on one dataplane.
type Prediction struct {
	Dataplane string `json:"dataplane"`
	Lookup    Lookup `json:"lookup"`
	// Evaluations is the rules a first packet walks (LinearWalk, mean over
	// services for the uniform position) or the lookups it does (MapLookup).
	Evaluations float64 `json:"evaluations"`
	// WalkBytes is the memory the first packet's rule walk touches
	// (WorkingSet; 0 for a map lookup).
	WalkBytes int64 `json:"walk_bytes,omitempty"`
	// Extrapolation is the query's services over the largest calibrated
	// N; Beyond is set above Options.BeyondFactor.
	Extrapolation float64        `json:"extrapolation"`
	Beyond        bool           `json:"beyond_calibration"`
	P50us         CostPrediction `json:"p50_us"`
	// AddrTypeMatches is, of Evaluations, the rules whose addrtype match a
	// first packet evaluates (a cluster's traced walk); AddrTypeUs what
	// they add to P50us beyond plain rules (nil: none, or not calibrated).
	AddrTypeMatches float64   `json:"addrtype_matches,omitempty"`
	AddrTypeUs      *Estimate `json:"addrtype_us,omitempty"`
	// RecentSteps are, for the position, the steps a first packet takes
	// walking xt_recent's list of lists to its ClientIP-affinity
	// Service's (RecentWalk; the median destination's for the uniform
	// position), and RecentUs what they add to P50us (nil: not priced).
	// The uniform P99us adds the slowest 1%'s steps: RecentTailSteps,
	// RecentTailUs (its interval also the band of Services a p99 of 1,000
	// connections lands among: RecentWalk.P99Lo, P99Hi).
	RecentSteps     float64         `json:"recent_steps,omitempty"`
	RecentUs        *Estimate       `json:"recent_us,omitempty"`
	RecentTailSteps float64         `json:"recent_tail_steps,omitempty"`
	RecentTailUs    *Estimate       `json:"recent_tail_us,omitempty"`
	P99us           *CostPrediction `json:"p99_us,omitempty"`
	CPUusPerConn    *CostPrediction `json:"cpu_us_per_conn,omitempty"`
	// CPUCores is the CPU spent on lookups at NewConnPerSec: rate × the
	// CPU per connection lookup adds.
	CPUCores        *Estimate       `json:"cpu_cores,omitempty"`
	SyncFull        *SyncPrediction `json:"sync_full_s,omitempty"`
	SyncIncremental *SyncPrediction `json:"sync_incremental_s,omitempty"`
	// SyncPerChange is what each further change adds to a partial sync
	// (nil: the calibration timed no batch).
	SyncPerChange *SyncPrediction `json:"sync_per_change_s,omitempty"`
	// SyncPerChangeKind is what SyncPerChange's changes are: "" endpoint
	// changes, scenario.BatchServices Service creations.
	SyncPerChangeKind string `json:"sync_per_change_kind,omitempty"`
	// KernelMemMB is the kernel memory the rules take (the growth of the
	// lab's kernel-memory measure across the load, docs/measurements.md
	// "Kernel memory"; a line against rules).
	KernelMemMB *Estimate `json:"kernel_mem_mb,omitempty"`
	// RecentListsMB is what KernelMemMB holds for the ruleset's xt_recent
	// lists (Machine.RecentListBytes each, of the calibration's machine):
	// the calibration's single-endpoint Services have none.
	RecentListsMB float64 `json:"recent_lists_mb,omitempty"`
	// Programming is the network programming latency at the query's churn
	// (nil without incremental sync calibration or churn).
	Programming *ProgrammingLatency `json:"programming_latency,omitempty"`
	Ruleset     Size                `json:"ruleset"`
	// Warnings are the calibration's warnings for this dataplane and the
	// prediction's own (extrapolation, approximate sizes).
	Warnings []string `json:"warnings,omitempty"`
}

// Validate checks a query and fills its default position.
func (q *Query) Validate() error {
	if q.Position == "" {
		q.Position = PositionUniform
	}
	if q.MinSyncPeriodS == 0 {
		q.MinSyncPeriodS = DefaultMinSyncPeriodS
	}
	if q.Composition != nil {
		q.Services = max(q.Composition.Services, 1)
	}
	if !(q.ChurnPerSec >= 0) || math.IsInf(q.ChurnPerSec, 0) || !(q.MinSyncPeriodS > 0) {
		return fmt.Errorf("churn %v/s, min sync period %v s: want churn ≥ 0 and a period > 0", q.ChurnPerSec, q.MinSyncPeriodS)
	}
	switch q.ChurnKind {
	case "":
		q.ChurnKind = scenario.BatchEndpoints
	case scenario.BatchEndpoints, scenario.BatchServices:
	default:
		return fmt.Errorf("churn kind %q: want %s or %s", q.ChurnKind, scenario.BatchEndpoints, scenario.BatchServices)
	}
	switch {
	case q.Services < 1 || q.Services > MaxQueryServices:
		return fmt.Errorf("services %d: want 1..%d", q.Services, MaxQueryServices)
	case q.EndpointsPerService < 0 || q.EndpointsPerService > MaxQueryEndpoints:
		return fmt.Errorf("endpoints per service %d: want 0..%d", q.EndpointsPerService, MaxQueryEndpoints)
	case !(q.NewConnPerSec >= 0) || math.IsInf(q.NewConnPerSec, 0):
		return fmt.Errorf("new connections per second %v: want a finite number ≥ 0", q.NewConnPerSec)
	}
	_, err := Evaluations(LinearWalk, q.Position, q.Services)
	return err
}

// Predict returns the query's cost on every calibrated dataplane (or the
// one it names), in the model's dataplane order.
func (m *Model) Predict(q Query) ([]Prediction, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if q.Dataplane != "" {
		if _, ok := m.Dataplane(q.Dataplane); !ok {
			return nil, fmt.Errorf("dataplane %q is not in the calibration (calibrated: %s)", q.Dataplane, strings.Join(m.names(), ", "))
		}
	}
	sizes := map[string]Size{}
	var out []Prediction
	for i := range m.Dataplanes {
		dm := &m.Dataplanes[i]
		if q.Dataplane != "" && dm.Dataplane != q.Dataplane {
			continue
		}
		size, ok := sizes[dm.Mode]
		if q.Composition != nil {
			if size, ok = q.Composition.Modes[dm.Mode]; !ok {
				return nil, fmt.Errorf("%s: the cluster's composition has no %s payload", dm.Dataplane, dm.Mode)
			}
		}
		if !ok {
			var err error
			if size, err = RulesetSize(dm.Mode, q.Services, q.EndpointsPerService); err != nil {
				return nil, fmt.Errorf("%s: %w", dm.Dataplane, err)
			}
			sizes[dm.Mode] = size
		}
		out = append(out, m.predictOne(dm, q, size))
	}
	return out, nil
}

func (m *Model) names() []string {
	names := make([]string, len(m.Dataplanes))
	for i, dm := range m.Dataplanes {
		names[i] = dm.Dataplane
	}
	return names
}

// predictOne predicts one dataplane's costs for a valid query.
func (m *Model) predictOne(dm *DataplaneModel, q Query, size Size) Prediction {
	evals, _ := Evaluations(dm.Lookup, q.Position, q.Services)
	if q.Composition != nil {
		evals, _ = q.Composition.evaluations(dm.Lookup, q.Position)
	}
	p := Prediction{Dataplane: dm.Dataplane, Lookup: dm.Lookup, Evaluations: evals, Ruleset: size,
		Extrapolation: float64(q.Services) / float64(dm.MaxServices), Warnings: append([]string(nil), dm.Warnings...)}
	if q.Composition != nil && dm.Lookup == LinearWalk {
		// A cluster's lookups walk its KUBE-SERVICES rules, one per
		// service port and address: the calibration's had one per service.
		p.Extrapolation = float64(max(q.Composition.ServiceRules, q.Services)) / float64(dm.MaxServices)
	}
	p.Beyond = p.Extrapolation > m.Options.BeyondFactor
	if p.Beyond {
		p.Warnings = append(p.Warnings, beyondWarning(dm, q.Services, p.Extrapolation))
	}
	warn := func(w string) { p.Warnings = append(p.Warnings, w) }
	p.P50us, p.AddrTypeUs = dm.withAddrTypes(dm.p50At(q.Position, evals, q.Services, warn), q, q.Position, warn)
	p.P50us, p.RecentSteps, p.RecentUs = dm.withRecent(p.P50us, q, q.Position, warn)
	if q.Position == PositionUniform {
		w := warn
		if p.RecentSteps >= 1 {
			w = func(string) {} // warned once above
		}
		_, p.RecentTailSteps, p.RecentTailUs = dm.withRecent(p.P50us, q, recentTail, w)
	}
	if q.Composition != nil && q.Composition.Walk != nil && dm.Lookup == LinearWalk {
		p.AddrTypeMatches = q.Composition.Walk.addrTypes(q.Position)
	}
	p.WalkBytes = WorkingSet(dm.Lookup, evals)
	if w := cacheWarning(dm.Dataplane, m.Source.Machine, dm.P50.MaxX, evals); w != "" && len(dm.Walk) == 0 {
		p.Warnings = append(p.Warnings, w)
	}
	if p99 := dm.p99For(q.Position); p99 != nil {
		c := predictCost(*p99, evals, q.Services)
		if dm.P99Tail != nil {
			c = dm.P99Tail.apply(dm.tailBase(q, p.P50us))
			if g, ok := dm.tailGrowth(q.Position, evals); ok {
				c.Total = c.Total.Plus(g).NonNegative()
			}
		}
		p.P99us = &c
	}
	if dm.CPU != nil {
		c := dm.withMatchCPU(predictCost(*dm.CPU, evals, q.Services), q)
		p.CPUusPerConn = &c
		cores := c.Added.Scale(q.NewConnPerSec / 1e6)
		p.CPUCores = &cores
	}
	p.SyncFull = m.predictSync(&p, dm.SyncFull, size, size.ChainList)
	// A partial sync restores one family's payload (Size.Partial), and
	// each change of a batch goes to its own family's.
	partial := size.forPartialSync()
	p.SyncIncremental = m.predictSync(&p, dm.SyncIncremental, partial, partial.PartialChainList)
	p.SyncPerChange = m.predictSync(&p, dm.SyncPerChange, partial, nil)
	dm.withRecentSync(p.SyncFull, size.RecentSync[dm.Dataplane].Full)
	dm.withRecentSync(p.SyncIncremental, partial.RecentSync[dm.Dataplane].Incremental)
	if p.SyncPerChange != nil {
		p.SyncPerChangeKind = dm.SyncPerChangeKind
	}
	if dm.KernelMem != nil {
		mem := dm.KernelMem.at(size)
		if size.RecentTables > 0 {
			p.RecentListsMB = float64(size.RecentTables) * float64(m.Source.Machine.RecentListBytes()) / 1e6
			mem = mem.Plus(exact(p.RecentListsMB))
		}
		p.KernelMemMB = &mem
	}
	p.Warnings = append(p.Warnings, syncGrowthWarning(dm.Dataplane, unpriced(p.SyncFull), unpriced(p.SyncIncremental))...)
	p.Warnings = append(p.Warnings, unpricedDumpWarning(dm.Dataplane, p.SyncIncremental)...)
	if p.SyncFull != nil && dm.SyncFull.AnonymousSets == nil {
		p.Warnings = append(p.Warnings, anonymousSetsWarning(dm.Dataplane, size)...)
	}
	p.Warnings = append(p.Warnings, recentTablesWarning(dm.Dataplane, size, dm.Recent != nil)...)
	if p.SyncIncremental != nil {
		p.Programming = predictProgramming(&p, q, dm.SyncPerChangeKind)
	}
	if !size.BytesExact {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s: ruleset bytes scaled from a rendered sample (about ±1%%)", dm.Dataplane))
	}
	return p
}

// predictProgramming is the network programming latency at the query's
// churn from p's sync predictions, warning when a busy loop's batches were
// not calibrated and when the loop falls behind.
func predictProgramming(p *Prediction, q Query, batchKind string) *ProgrammingLatency {
	var perChange *Estimate
	kind := ChurnKindName(q.ChurnKind)
	carried := q.ChurnPerSec * (q.MinSyncPeriodS + p.SyncIncremental.Seconds.Value)
	missing := fmt.Sprintf("timed no batch of %s (sweep.incrementalBatch, svclab plan calibrate)", kind)
	if p.SyncPerChange != nil {
		missing = fmt.Sprintf("batched %s (sweep.incrementalBatchKind), not %s", ChurnKindName(batchKind), kind)
	}
	switch {
	case p.SyncPerChange != nil && ChurnKindName(batchKind) == kind:
		perChange = &p.SyncPerChange.Seconds
	case carried >= 2:
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s programming latency: at %g %s/s a sync carries about %.0f, but the calibration %s, so a partial sync is taken to cost one change's however many it carries: the latency is likely underestimated", p.Dataplane, q.ChurnPerSec, kind, carried, missing))
	}
	pl := NewProgrammingLatency(q.ChurnPerSec, q.MinSyncPeriodS, p.SyncIncremental.Seconds, perChange, p.SyncFull)
	pl.ChangeKind = q.ChurnKind
	if pl.FallsBehind {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s programming latency: at %g %s/s each adds %.3g s to a sync, so the sync loop falls behind and the latency grows for as long as the churn lasts (shown: after two hours)", p.Dataplane, q.ChurnPerSec, kind, perChange.Value))
	}
	return pl
}

// tailBase is the p50 a rule walk's p99 is read from: the position's own
// p50, or, for connections spread uniformly over the services, the p50 at
// the 99th percentile of the positions (the slowest 1% of connections walk
// to the last 1% of the services).
func (dm *DataplaneModel) tailBase(q Query, p50 CostPrediction) CostPrediction {
	if q.Position != PositionUniform {
		return p50
	}
	quiet := func(string) {}
	c, _ := dm.withAddrTypes(dm.p50At(PositionLast, tailEvals(q, dm), q.Services, quiet), q, PositionLast, quiet)
	c, _, _ = dm.withRecent(c, q, recentTail, quiet)
	return c
}

// uniformTailQuantile is the share of KUBE-SERVICES the slowest 1% of
// uniformly spread connections walk.
const uniformTailQuantile = 0.99

func predictCost(c CostCurve, evals float64, services int) CostPrediction {
	out := CostPrediction{Added: c.Added(evals, services), Total: c.Total(evals, services), Points: c.Points,
		Extrapolation: c.probedExtrapolation(services)}
	if c.Lookup == LinearWalk {
		per := c.PerEvaluation()
		out.PerEvaluation, out.R2 = &per, c.Line.R2
	}
	return out
}

// predictSync predicts a sync time for size's ruleset, whose payload walks
// the restore tool's chain list as walk does (nil: not an iptables
// payload), or nil when not calibrated.
func (m *Model) predictSync(p *Prediction, c *SyncCurve, size Size, walk *iptables.ChainListWork) *SyncPrediction {
	if c == nil {
		return nil
	}
	restores := c.restoresOf(size)
	atRestores, read, composition := c.atPayloads(restores)
	largest := slices.Max(read)
	s := &SyncPrediction{Form: c.Form, R2: c.R2, Points: c.Points, Extrapolation: largest / c.MaxRules, Composition: composition}
	if w := c.unpricedPartialWarning(p.Dataplane, restores); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	switch {
	case len(restores) > 1:
		s.Form += " per family"
	case size.oneOfFamilies:
		s.Form += " of one family"
	}
	switch {
	case composition.Differs() && composition.PartialDiffers():
		s.Form += " by chains and partial payload"
	case composition.Differs():
		s.Form += " by chains"
	case composition.PartialDiffers():
		s.Form += " by partial payload"
	}
	// The fit's interval is for the mean curve; a sweep measures a median
	// of a few loads, each scattering around it (Load.widen). And it says
	// nothing about the form being wrong beyond the data: widen it by the
	// error the form made predicting the largest calibrated size, grown
	// with the extrapolation.
	formError := func(e Estimate) Estimate {
		if err := c.ExtrapolationError(s.Extrapolation); err > 0 && s.Extrapolation > 1 {
			return e.Widen(err)
		}
		return e
	}
	if c.ChainList == nil && c.ChainDump == nil && c.AnonymousSets == nil {
		s.Seconds = formError(c.Load.widen(atRestores))
	} else {
		// The form fitted the rest of the sync: its error is the rest's;
		// the loads scatter as the whole sync does. The rest cannot be
		// negative (a walk's price may exceed a small sync's whole time by
		// up to its uncertainty).
		priced := m.pricedWalks(p, c, s, size, walk)
		s.Seconds = c.Load.widen(formError(atRestores).NonNegative().Plus(priced))
	}
	s.Beyond = s.Extrapolation > m.Options.BeyondFactor
	if s.Beyond {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s %s: %.0f rules%s is %.1f× the largest calibrated ruleset (%.0f rules): beyond calibration",
			p.Dataplane, c.Metric, largest, readNote(len(restores), composition), s.Extrapolation, c.MaxRules))
	}
	// A per-change cost at or below zero says the batch cost no more than
	// one change: it is used as zero, not refused.
	if s.Seconds.Value <= 0 && c.Metric != MetricSyncPerChange {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%s %s: the %s fit predicts %.3g s at %d rules; not usable", p.Dataplane, c.Metric, c.Form, s.Seconds.Value, size.Rules))
	}
	s.Seconds = s.Seconds.NonNegative()
	return s
}

// readNote names the payload whose rules a sync's extrapolation is of:
// its largest family's when it restores one per family, and a calibration
// payload of its chains when it was read so (CompositionPrice.Differs).
func readNote(restores int, composition *CompositionPrice) string {
	var parts []string
	if restores > 1 {
		parts = append(parts, "its largest family's payload")
	}
	if composition.Differs() {
		parts = append(parts, "read as a calibration payload of as many chains")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// pricedWalks is the walks a sync curve priced on the calibration's
// machine, at size's ruleset (walk: its chain-list walk), recorded in s
// and warned about in p where they go beyond the lists timed.
func (m *Model) pricedWalks(p *Prediction, c *SyncCurve, s *SyncPrediction, size Size, walk *iptables.ChainListWork) Estimate {
	priced := exact(0)
	if c.ChainList != nil {
		list := c.ChainList.seconds(walk)
		s.ChainList, s.Form, priced = &list, s.Form+" + chain-list walk", priced.Plus(list)
		if c.ChainList.beyond(walk) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s %s: the restore's chain list grows to %d chains, beyond the longest the calibration timed a step of (%d): priced at that length's cost, likely low",
				p.Dataplane, c.Metric, walk.Longest, c.ChainList.Steps[len(c.ChainList.Steps)-1].Chains))
		}
	}
	if c.ChainDump != nil {
		dump := c.ChainDump.seconds(size.Chains)
		s.ChainDump, s.Form, priced = &dump, s.Form+" + chain-dump walk", priced.Plus(dump)
		if c.ChainDump.beyond(size.Chains) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s %s: nft's chain dump walks %d chains, beyond the longest the calibration timed a step of (%d): priced at that length's cost, likely low",
				p.Dataplane, c.Metric, size.Chains, c.ChainDump.Packed[len(c.ChainDump.Packed)-1].Chains))
		}
	}
	if c.AnonymousSets != nil && size.AnonymousSetWork != nil {
		sets := c.AnonymousSets.forSync(c.Metric, size.AnonymousSetWork)
		s.AnonymousSets, priced = &sets, priced.Plus(sets)
		if c.Metric == MetricSyncFull {
			s.Form += " + anonymous-set walks"
			p.Warnings = append(p.Warnings, c.AnonymousSets.pricingWarnings(p.Dataplane, c.Metric, size.AnonymousSetWork)...)
		} else {
			s.Form += " + anonymous sets listed"
		}
	}
	return priced
}

// unpriced is s unless its chain-list walk was priced (nil then): a priced
// sync already grows as the tool's walk does.
func unpriced(s *SyncPrediction) *SyncPrediction {
	if s != nil && (s.ChainList != nil || s.ChainDump != nil) {
		return nil
	}
	return s
}

// syncGrowthWarning warns when a sync of a dataplane whose syncs are known
// to outgrow the fitted forms (sim/dataplane's SyncGrowthNote) is predicted
// past the largest calibrated ruleset.
func syncGrowthWarning(name string, syncs ...*SyncPrediction) []string {
	info, _ := modelled(name)
	factor := 0.0
	for _, s := range syncs {
		if s != nil {
			factor = max(factor, s.Extrapolation)
		}
	}
	if info.SyncGrowthNote == "" || factor <= 1 {
		return nil
	}
	return []string{fmt.Sprintf("%s syncs predicted at %.2g× the largest calibrated ruleset, where they may grow faster than the fitted form: %s. Time sync probes up to this size (sweep.syncProbe, with sweep.syncLimit above it), or take these syncs as lower bounds", name, factor, info.SyncGrowthNote)}
}

// PlanRepetitions is the repetitions a size svclab plan calibrate --help
// gives for a plan far past the calibrated sizes, as the 9-load 10×
// holdout recipes had (docs/planning.md).
const PlanRepetitions = 9

// beyondWarning says a prediction for services is extrapolation× dm's
// largest calibrated N, past the model's BeyondFactor.
func beyondWarning(dm *DataplaneModel, services int, extrapolation float64) string {
	return fmt.Sprintf("%s: %d services is %.1f× the largest calibrated N (%d): beyond calibration%s",
		dm.Dataplane, services, extrapolation, dm.MaxServices, fewRepetitionsNote(dm.Repetitions))
}

// fewRepetitionsNote is what a prediction beyond calibration adds when
// the calibration has fewer than PlanRepetitions repetitions a size: one
// load of each probe and 2 or 3 of each point cover the measurement with
// their intervals, but their values scatter past the targets (a 10× check
// of 3-minute calibrations against sweeps measured apart from them:
// docs/planning.md).
func fewRepetitionsNote(repetitions int) string {
	if repetitions == 0 || repetitions >= PlanRepetitions {
		return ""
	}
	return fmt.Sprintf(" with %d repetitions a size: read the intervals more than the values (docs/planning.md); for a plan this far out calibrate with --reps %d --walk-probe-reload",
		repetitions, PlanRepetitions)
}
