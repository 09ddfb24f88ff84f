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

// seconds is w's walks priced, with an interval from the fastest rounds'
// steps to the slowest's.
func (p *AnonymousSetPrice) seconds(w *AnonymousSetWork) Estimate {
	if p == nil || w == nil || w.Sets == 0 {
		return exact(0)
	}
	at := func(ns func(results.AnonymousSetStep) float64) float64 {
		return (w.NameSteps*stepAtLength(p.Naming, float64(w.Sets), ns) + w.BindSteps*stepAtLength(p.Binding, w.bindLength(), ns)) / 1e9
	}
	return Estimate{
		Value: at(func(s results.AnonymousSetStep) float64 { return s.NsPerStep }),
		Lo:    at(func(s results.AnonymousSetStep) float64 { return s.MinNsPerStep }),
		Hi:    at(func(s results.AnonymousSetStep) float64 { return s.MaxNsPerStep }),
	}
}

// bindLength is the commit-list entries a binding walk of w passes on
// average (over every family's sets: each family's load is a transaction
// of its own).
func (w *AnonymousSetWork) bindLength() float64 {
	return w.BindSteps / float64(max(w.AllSets, w.Sets, 1))
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

// beyondWarning says which of w's walks were priced past the longest list
// the calibration timed them on, at that list's step.
func (p *AnonymousSetPrice) beyondWarning(name, metric string, w *AnonymousSetWork) []string {
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
	check("naming", p.Naming, float64(w.Sets))
	check("binding", p.Binding, w.bindLength())
	return out
}
