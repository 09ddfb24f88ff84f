package cost

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	iptablesrender "github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/route"
)

// ChainListPrice prices the chain-list walk of a restore tool that keeps
// one (dataplane.Info.ChainListRestore: iptables-nft-restore --noflush):
// a payload's compares (iptables.ChainListWork) times what one step of the
// walk takes on the calibration's machine at the list's length
// (results.Meta.ChainListWalk, lab/chainlist). A sync curve fitted with a
// price fits the rest of the sync (parsing, the kernel's commit) and adds
// the priced walk at the size it predicts: the walk grows as compares ×
// the step's cost, which rises once the list outgrows the caches, and no
// form fitted below that size extrapolates it.
type ChainListPrice struct {
	// Layout is the list layout whose steps price the walk
	// (results.ChainListFull or results.ChainListPartial): the sync's own,
	// or the full payload's for a partial sync of a run that timed only
	// that one (before 2026-12-05).
	Layout string                  `json:"layout,omitempty"`
	Steps  []results.ChainListStep `json:"steps"`
	// Uncertainty is the relative half-width of a priced walk's interval
	// (chainListUncertainty), at least: the interval also takes in the
	// walk priced at the steps of the fastest and of the slowest of the
	// rounds that timed them (results.ChainListStep.MinNsPerStep,
	// MaxNsPerStep), which on this VM wander up to 5 times apart at 45,000
	// to 64,000 chains, and so does iptables-nft-restore's own time
	// (docs/measurements.md, "iptables-nft-restore's chain list").
	Uncertainty float64 `json:"uncertainty"`
}

// chainListUncertainty is how far the priced walk may be from the tool's:
// lab/chainlist's step against iptables-nft-restore's own (user time over
// compares), measured on one VM at 5,000 to 50,000 Services
// (results/iptables-nft-restore/noflush-sizes.txt, docs/measurements.md,
// "iptables-nft-restore's chain list").
const chainListUncertainty = 0.35

// newChainListPrice is the price of walk's steps on layout's list (the
// full payload's when walk has none of layout's), or nil without any.
func newChainListPrice(walk []results.ChainListStep, layout string) *ChainListPrice {
	if !slices.ContainsFunc(walk, func(s results.ChainListStep) bool { return s.OfLayout(layout) }) {
		layout = results.ChainListFull
	}
	var steps []results.ChainListStep
	for _, s := range walk {
		if s.OfLayout(layout) && s.Chains > 0 && s.NsPerStep > 0 {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return nil
	}
	slices.SortFunc(steps, func(a, b results.ChainListStep) int { return a.Chains - b.Chains })
	return &ChainListPrice{Layout: layout, Steps: steps, Uncertainty: chainListUncertainty}
}

// PriceChainListWalk is the time of w's walk on steps timed on layout's
// list (lab/chainlist.Measure), as svclab plan prices a sync's walk, with
// its interval: lab/chainlist checks the price against the tool's own time.
func PriceChainListWalk(steps []results.ChainListStep, layout string, w *iptables.ChainListWork) (Estimate, error) {
	p := newChainListPrice(steps, layout)
	if p == nil {
		return Estimate{}, fmt.Errorf("pricing a chain-list walk on the %s layout: no step timed", layout)
	}
	return p.seconds(w), nil
}

// split says whether every step was timed cold and warm apart
// (results.ChainListStep.ColdNsPerStep, WarmNsPerStep): runs before
// 2026-12-05 timed only the mean step of random walks.
func (p *ChainListPrice) split() bool {
	return !slices.ContainsFunc(p.Steps, func(s results.ChainListStep) bool { return s.ColdNsPerStep <= 0 || s.WarmNsPerStep <= 0 })
}

// nsPerStep is a mean step's cost at a list of length chains.
func (p *ChainListPrice) nsPerStep(chains float64) float64 {
	return p.stepAt(chains, func(s results.ChainListStep) float64 { return s.NsPerStep })
}

// stepAt is a step's cost (of ns's kind) at a list of length chains:
// interpolated between the measured lengths as a power law (log-log),
// held at the nearest measured length outside them.
func (p *ChainListPrice) stepAt(chains float64, ns func(results.ChainListStep) float64) float64 {
	s := p.Steps
	switch {
	case chains <= float64(s[0].Chains):
		return ns(s[0])
	case chains >= float64(s[len(s)-1].Chains):
		return ns(s[len(s)-1])
	}
	i := 1
	for float64(s[i].Chains) < chains {
		i++
	}
	lo, hi := s[i-1], s[i]
	f := math.Log(chains/float64(lo.Chains)) / math.Log(float64(hi.Chains)/float64(lo.Chains))
	return ns(lo) * math.Pow(ns(hi)/ns(lo), f)
}

// seconds is the walk's time for w's compares, each bucket priced at its
// mean length (its cold and warm compares apart when the steps were timed
// so), with the price's interval: ±Uncertainty, widened to the walk priced
// at the fastest and at the slowest rounds' steps where every step has
// them.
func (p *ChainListPrice) seconds(w *iptables.ChainListWork) Estimate {
	if p == nil || w == nil {
		return exact(0)
	}
	split, ranged := p.split(), p.ranged()
	var ns, fastest, slowest float64
	for _, b := range w.ByLength {
		mean := p.nsPerStep(b.MeanLength)
		bucket := float64(b.Compares) * mean
		if split {
			cold := p.stepAt(b.MeanLength, func(s results.ChainListStep) float64 { return s.ColdNsPerStep })
			warm := p.stepAt(b.MeanLength, func(s results.ChainListStep) float64 { return s.WarmNsPerStep })
			bucket = float64(b.Compares-b.Warm)*cold + float64(b.Warm)*warm
		}
		ns += bucket
		if ranged {
			fastest += bucket * p.stepAt(b.MeanLength, func(s results.ChainListStep) float64 { return s.MinNsPerStep }) / mean
			slowest += bucket * p.stepAt(b.MeanLength, func(s results.ChainListStep) float64 { return s.MaxNsPerStep }) / mean
		}
	}
	s := ns / 1e9
	e := Estimate{Value: s, Lo: s * (1 - p.Uncertainty), Hi: s * (1 + p.Uncertainty)}
	if ranged {
		e.Lo, e.Hi = min(e.Lo, fastest/1e9), max(e.Hi, slowest/1e9)
	}
	return e
}

// ranged says whether every step has its fastest and slowest round
// (results.ChainListStep.MinNsPerStep, MaxNsPerStep): runs recorded
// before those fields (2026-12-05) kept only the mean.
func (p *ChainListPrice) ranged() bool {
	return !slices.ContainsFunc(p.Steps, func(s results.ChainListStep) bool {
		return s.MinNsPerStep <= 0 || s.MaxNsPerStep < s.MinNsPerStep || s.NsPerStep <= 0
	})
}

// beyond says whether w's list is longer than the longest measured.
func (p *ChainListPrice) beyond(w *iptables.ChainListWork) bool {
	return p != nil && w != nil && w.Longest > p.Steps[len(p.Steps)-1].Chains
}

// chainListSample is the most services whose payload is rendered to
// count its chain-list compares; larger ones scale this size's (compares
// grow as the square of the services: chains × commands). A variable so
// tests can lower it.
var chainListSample = 20_000

// chainListWorks memoizes renderedChainList by services, endpoints and
// payload kind.
var chainListWorks sync.Map

type chainListKey struct {
	services, endpoints int
	partial             bool
}

// syntheticChainList is the chain-list walk of mode's synthetic payload of
// n services with m endpoints each, the full sync's or (partial) the
// partial sync's of one changed service; nil for a mode whose payload is
// not iptables-restore text.
func syntheticChainList(mode string, n, m int, partial bool) (*iptables.ChainListWork, error) {
	if mode != string(dataplane.ModeIPTables) {
		return nil, nil
	}
	if n <= chainListSample {
		return renderedChainList(n, m, partial)
	}
	return scaledChainList(n, m, partial)
}

// scaledChainList is syntheticChainList from the rendered samples alone,
// for any n: a budget's bisection asks for many sizes and renders none of
// them.
func scaledChainList(n, m int, partial bool) (*iptables.ChainListWork, error) {
	full, err := renderedChainList(chainListSample, m, partial)
	if err != nil {
		return nil, err
	}
	half, err := renderedChainList(chainListSample/2, m, partial)
	if err != nil {
		return nil, err
	}
	return full.Scaled(float64(n)/float64(chainListSample), comparesAt(half, full, n)/float64(full.Compares)), nil
}

// comparesAt is the compares at n services of a walk with half's at
// chainListSample/2 and full's at chainListSample: a·n² + b·n through
// both (each of n services' commands walks a list of chains that grows
// with n; the lists' fixed chains add a line).
func comparesAt(half, full *iptables.ChainListWork, n int) float64 {
	s := float64(chainListSample)
	c1, c2 := float64(full.Compares), float64(half.Compares)
	a := 2 * (c1 - 2*c2) / (s * s)
	b := (c1 - a*s*s) / s
	x := float64(n)
	return a*x*x + b*x
}

// renderedChainList renders and counts one synthetic iptables payload,
// once per size and kind.
func renderedChainList(n, m int, partial bool) (*iptables.ChainListWork, error) {
	key := chainListKey{n, m, partial}
	if w, ok := chainListWorks.Load(key); ok {
		return w.(*iptables.ChainListWork), nil
	}
	mdl, err := syntheticModel(n, m)
	if err != nil {
		return nil, err
	}
	var w *iptables.ChainListWork
	if partial {
		w, _, err = partialChainList(mdl, render.Config{})
	} else {
		var payload bytes.Buffer
		if _, err = route.Render(&payload, mdl, route.Config{Mode: dataplane.ModeIPTables}); err == nil {
			w, err = payloadChainList(dataplane.ModeIPTables, payload.Bytes())
		}
	}
	if err != nil {
		return nil, err
	}
	chainListWorks.Store(key, w)
	return w, nil
}

// partialChainList is the chain-list walk of kube-proxy's partial sync of
// mdl (one family's) that rewrites one service's chains, the middle one's,
// as a sweep's incremental sync does (lab/apply), and its payload's rules.
func partialChainList(mdl *model.Model, cfg render.Config) (*iptables.ChainListWork, int, error) {
	var payload bytes.Buffer
	middle := mdl.Services.Len() / 2
	st, err := iptablesrender.RenderPartial(&payload, mdl, iptablesrender.OptionsFor(cfg), func(i int) bool { return i == middle })
	if err != nil {
		return nil, 0, fmt.Errorf("render the partial sync of %d services: %w", mdl.Services.Len(), err)
	}
	w, err := payloadChainList(dataplane.ModeIPTables, payload.Bytes())
	return w, st.Rules, err
}

// payloadChainList counts a payload's chain-list walk (iptables mode; nil
// for others).
func payloadChainList(mode dataplane.Mode, payload []byte) (*iptables.ChainListWork, error) {
	if mode != dataplane.ModeIPTables {
		return nil, nil
	}
	w, err := iptables.ChainListCompares(bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("count the chain-list walk of the %s payload: %w", mode, err)
	}
	return &w, nil
}

// pointChainList is the chain-list walk of a calibration point's payload
// (partial: of its incremental sync's):
// its services, with the endpoints per service that give its recorded
// rules (1 when none does, as pointRules assumes).
func pointChainList(mode string, p results.Point, partial bool) (*iptables.ChainListWork, error) {
	return syntheticChainList(mode, p.Services, pointEndpoints(mode, p), partial)
}

// maxInferredEndpoints bounds pointEndpoints' search.
const maxInferredEndpoints = 64

// pointEndpoints is the endpoints per service whose synthetic payload has
// the point's recorded rules, or 1. Where several do (nftables writes one
// rule per service for 1 and for 2 endpoints: its numgen map holds them),
// the point's recorded lines choose: the candidate whose synthetic payload
// has the nearest line count.
func pointEndpoints(mode string, p results.Point) int {
	var candidates []int
	if p.Rules > 0 {
		for m := range maxInferredEndpoints + 1 {
			if s, err := countsOf(mode, p.Services, m); err == nil && s.Rules == p.Rules {
				candidates = append(candidates, m)
			}
		}
	}
	switch {
	case len(candidates) == 0:
		return 1
	case len(candidates) == 1 || p.Lines <= 0:
		return candidates[0]
	}
	return nearestInLines(mode, p, candidates)
}

// nearestInLines is the candidate endpoints per service whose synthetic
// payload of the point's services has the line count nearest the point's
// (the first candidate when none can be rendered).
func nearestInLines(mode string, p results.Point, candidates []int) int {
	best, bestGap := candidates[0], math.Inf(1)
	for _, m := range candidates {
		lines, err := syntheticLines(mode, p.Services, m)
		if err != nil {
			continue
		}
		if gap := math.Abs(float64(lines - p.Lines)); gap < bestGap {
			best, bestGap = m, gap
		}
	}
	return best
}

// syntheticLines is the lines of mode's payload of n synthetic services
// with m endpoints each, grown from renders of one and two services (a
// service's lines do not depend on how many come before it).
func syntheticLines(mode string, n, m int) (int, error) {
	few, err := firstServices(mode, m)
	if err != nil {
		return 0, err
	}
	one, two := bytes.Count(few[0], []byte("\n")), bytes.Count(few[1], []byte("\n"))
	return one + (two-one)*(n-1), nil
}

// syncForm is what is known of a sync's growth before fitting: a tool
// with a quadratic term (dataplane.Info.FullSyncQuadratic), a chain-list
// walk or a chain dump's walk priced on the machine.
type syncForm struct {
	quadratic bool
	chainList *ChainListPrice
	chainDump *ChainDumpPrice
	// anonymousSets prices a full sync's walks per anonymous set, or an
	// incremental sync's cost per set of the table (partial).
	anonymousSets *AnonymousSetPrice
	// partial says the sync is a partial one (its walk is the partial
	// payload's).
	partial bool
	// oneFamily says every calibration point loaded one IP family's
	// payload (SyncCurve.OneFamily).
	oneFamily bool
	// replacesTable says every restore replaces the whole table
	// (dataplane.Info.RestoreReplacesTable): a partial sync's tool then
	// reads its payload and hands the kernel the table (PartialPayload).
	replacesTable bool
}

// withoutChainList is a point's sync time less its priced chain-list walk,
// chain dump's walk and anonymous sets' walks (the time itself without a
// price).
func (f syncForm) withoutChainList(mode string, p results.Point, seconds float64) (float64, error) {
	if f.anonymousSets != nil {
		w, err := syntheticWork(mode, p.Services, pointEndpoints(mode, p))
		if err != nil {
			return 0, fmt.Errorf("%d services: %w", p.Services, err)
		}
		metric := MetricSyncFull
		if f.partial {
			metric = MetricSyncIncremental
		}
		seconds -= f.anonymousSets.forSync(metric, w).Value
	}
	if f.chainDump != nil {
		chains, err := pointChains(mode, p)
		if err != nil {
			return 0, fmt.Errorf("%d services: %w", p.Services, err)
		}
		seconds -= f.chainDump.seconds(chains).Value
	}
	if f.chainList == nil {
		return seconds, nil
	}
	w, err := pointChainList(mode, p, f.partial)
	if err != nil {
		return 0, fmt.Errorf("%d services: %w", p.Services, err)
	}
	return seconds - f.chainList.seconds(w).Value, nil
}
