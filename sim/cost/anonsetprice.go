package cost

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// AnonymousSetPrice prices the kernel's two walks per anonymous set of an
// nftables full sync (AnonymousSetWork) with their steps timed on the
// calibration's machine (results.Meta.AnonymousSetWalk, lab/nftsetwalk):
// a naming step at the table's sets, a binding step at the mean length of
// the commit list its walks passed, which costs several times more once
// the list outgrows the caches. Each is priced at the steps timed at the
// nearest lengths (geometric interpolation between two; the longest one's
// beyond them, likely low there).
//
// Listing prices what an incremental sync pays on a table of anonymous
// sets: a cost per set of the table once a transaction (nft's cache of
// them), nil when the calibration did not time it.
type AnonymousSetPrice struct {
	Naming  []results.AnonymousSetStep `json:"naming"`
	Binding []results.AnonymousSetStep `json:"binding"`
	Listing []results.AnonymousSetStep `json:"listing,omitempty"`
}

// newAnonymousSetPrice is the price of walk's steps, or nil unless both
// walks were timed, each at ascending lengths with positive prices.
func newAnonymousSetPrice(walk []results.AnonymousSetStep) *AnonymousSetPrice {
	p := &AnonymousSetPrice{}
	for _, s := range walk {
		switch s.Walk {
		case results.AnonymousSetNaming:
			p.Naming = append(p.Naming, s)
		case results.AnonymousSetBinding:
			p.Binding = append(p.Binding, s)
		case results.AnonymousSetListing:
			p.Listing = append(p.Listing, s)
		}
	}
	if !usableSteps(p.Naming) || !usableSteps(p.Binding) {
		return nil
	}
	if !usableSteps(p.Listing) {
		p.Listing = nil
	}
	return p
}

// forSync is what p prices of a sync of metric on w's payload: a full
// sync's walks, an incremental sync's listing, nothing for the others.
func (p *AnonymousSetPrice) forSync(metric string, w *AnonymousSetWork) Estimate {
	switch metric {
	case MetricSyncFull:
		return p.seconds(w)
	case MetricSyncIncremental:
		return p.listingSeconds(w)
	}
	return exact(0)
}

// listingSeconds is what an incremental sync's transaction pays for the
// anonymous sets of w's tables, with the rounds' interval; zero without a
// listing price.
func (p *AnonymousSetPrice) listingSeconds(w *AnonymousSetWork) Estimate {
	if p == nil || len(p.Listing) == 0 || w == nil || w.Sets == 0 {
		return exact(0)
	}
	sets := float64(max(w.AllSets, w.Sets))
	at := func(ns func(results.AnonymousSetStep) float64) float64 {
		return sets * stepAtLength(p.Listing, float64(w.Sets), ns) / 1e9
	}
	return Estimate{
		Value: at(func(s results.AnonymousSetStep) float64 { return s.NsPerStep }),
		Lo:    at(func(s results.AnonymousSetStep) float64 { return s.MinNsPerStep }),
		Hi:    at(func(s results.AnonymousSetStep) float64 { return s.MaxNsPerStep }),
	}
}

// usableSteps says whether steps are priced, at lengths ascending.
func usableSteps(steps []results.AnonymousSetStep) bool {
	for i, s := range steps {
		if s.Length < 1 || s.MinNsPerStep <= 0 || s.NsPerStep < s.MinNsPerStep || s.MaxNsPerStep < s.NsPerStep || (i > 0 && s.Length <= steps[i-1].Length) {
			return false
		}
	}
	return len(steps) > 0
}

// seconds is w's walks priced, the set-list steps taken in a cache the
// binding walks emptied (coldFactor), with an interval from the fastest
// rounds' steps taken warm to the slowest rounds' taken cold.
func (p *AnonymousSetPrice) seconds(w *AnonymousSetWork) Estimate {
	if p == nil || w == nil || w.Sets == 0 {
		return exact(0)
	}
	at := func(ns func(results.AnonymousSetStep) float64, cold float64) float64 {
		return (w.NameSteps*stepAtLength(p.Naming, w.nameLength(), ns)*cold + w.BindSteps*stepAtLength(p.Binding, w.bindLength(), ns)) / 1e9
	}
	cold := p.coldFactor(w)
	return Estimate{
		Value: at(func(s results.AnonymousSetStep) float64 { return s.NsPerStep }, cold),
		Lo:    at(func(s results.AnonymousSetStep) float64 { return s.MinNsPerStep }, 1),
		Hi:    at(func(s results.AnonymousSetStep) float64 { return s.MaxNsPerStep }, cold),
	}
}

// coldFactor is how many times a set-list step costs its timed price in
// w's load (at least 1): lab/nftsetwalk times the step in transactions of
// a few hundred entries, whose sets stay in the caches, while in a full
// load each anonymous set's walks follow its binding walk over the commit
// list so far, which empties them once the list outgrows them. The binding
// step itself shows by how much a walk's step grows then on this machine:
// its price at the commit list a set-list step follows, on average
// (nameEntries), over its price at the shortest list timed. By hand
// (results/plan-set-lists), 8,000 sets with 256 maps added behind 150,000
// other rules in the same transaction cost 330-440 ns a set-list step
// against 84-100 without them, and cluster-500's mix at 9,540 Services
// spent about 375 ns a step (perf), where the binding step grew 4.6 times
// from 26,000 entries to 200,000. Against loads measured minutes from
// two calibrations (results/plan-set-lists), 10,000 and 20,000
// two-endpoint Services and the mix came out −23%, −36% and −54% priced
// warm and +2.5%, +2.2% and −21% priced so from the first calibration,
// and −17%, −31% and −44% priced so (every interval covering) from the
// second: the binding step's two rounds differ up to 3× within one.
func (p *AnonymousSetPrice) coldFactor(w *AnonymousSetWork) float64 {
	nearest := p.Binding[0].NsPerStep
	return max(stepAtLength(p.Binding, w.nameEntries(), func(s results.AnonymousSetStep) float64 { return s.NsPerStep })/nearest, 1)
}

// stepAtLength is a step's price of ns at a list of length entries: the
// nearest timed length's outside them, geometrically interpolated between
// the two around it.
func stepAtLength(s []results.AnonymousSetStep, length float64, ns func(results.AnonymousSetStep) float64) float64 {
	switch {
	case length <= float64(s[0].Length):
		return ns(s[0])
	case length >= float64(s[len(s)-1].Length):
		return ns(s[len(s)-1])
	}
	i, _ := slices.BinarySearchFunc(s, length, func(st results.AnonymousSetStep, l float64) int {
		return cmp.Compare(float64(st.Length), l)
	})
	lo, hi := s[i-1], s[i]
	f := math.Log(length/float64(lo.Length)) / math.Log(float64(hi.Length)/float64(lo.Length))
	return ns(lo) * math.Pow(ns(hi)/ns(lo), f)
}

// pricingWarnings says which of w's walks were priced past the longest
// list the calibration timed them on, at that list's step, and when its
// set-list walks are priced above their timed step (coldFactor).
func (p *AnonymousSetPrice) pricingWarnings(name, metric string, w *AnonymousSetWork) []string {
	if p == nil || w == nil || w.Sets == 0 {
		return nil
	}
	var out []string
	check := func(walk string, steps []results.AnonymousSetStep, length float64) {
		last := steps[len(steps)-1]
		if length <= float64(last.Length) {
			return
		}
		out = append(out, fmt.Sprintf("%s %s: the payload's anonymous sets' %s walks pass %.0f entries on average, %.1f× the longest the calibration timed (%d): "+
			"priced at that length's step (%.1f ns), likely low, as a step costs more once the list outgrows the caches",
			name, metric, walk, length, length/float64(last.Length), last.Length, last.NsPerStep))
	}
	check("set-list", p.Naming, w.nameLength())
	check("binding", p.Binding, w.bindLength())
	if cold := p.coldFactor(w); cold >= coldWarnAt {
		out = append(out, fmt.Sprintf("%s %s: the payload's set-list walks are priced at their step timed in short transactions; in this load a step follows binding walks over %.0f entries on average, "+
			"which empty the caches: they are priced at %.1f× that (the binding step's growth from the shortest list timed to that one), the interval's lower end at 1×",
			name, metric, w.nameEntries(), cold))
	}
	return out
}

// coldWarnAt is the coldFactor from which a plan says its set-list walks
// may cost more than priced.
const coldWarnAt = 1.5
