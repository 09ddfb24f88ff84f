package cost

import (
	"fmt"
	"maps"
	"slices"

	"github.com/svclab/svclab/sim/results"
)

// RecentCost is what a step of xt_recent's walk of its lists costs a first
// packet on the calibration's machine: a recent rule finds its list by
// name in one list of all of them (recent_table_lookup, under a lock, for
// every packet it checks), so a ClientIP-affinity Service's first packet
// pays for every list created before its endpoints' (RecentWalk). Timed by
// the sweep's recent probe (sweep.recentProbe): a walk probe with Lists−1
// lists created ahead of one that Rules rules check, against the walk
// probe alone.
type RecentCost struct {
	// Services is the walk probe's size, Lists the place of the list the
	// probe's rules check (every list it passes and itself), Rules how
	// many rules check it, Positions the probe positions timed.
	Services  int      `json:"services"`
	Lists     int      `json:"lists"`
	Rules     int      `json:"rules"`
	Positions []string `json:"positions"`
	// PerStepUs is a step's cost (µs): the probes' p50 difference per
	// rule, less the calibrated cost of a plain rule, over Lists, the
	// mean over Positions; the lookup's fixed cost (the lock, the source's
	// hash bucket) is spread over the steps. Its interval is the
	// differences' over the probes' repetitions.
	PerStepUs   Estimate `json:"per_step_us"`
	Repetitions int      `json:"repetitions"`
}

// recentCost is dataplane's RecentCost from a run's recent probes and
// walk probes (pairs of the same size and position; the smallest size with
// a pair), less plainUs a rule; nil without such a pair.
func recentCost(probes, walks []results.Point, dataplane string, plainUs float64) *RecentCost {
	bySize := map[int][][2]results.Point{}
	for _, p := range probes {
		if p.Dataplane != dataplane || p.P50us <= 0 || p.Extra[results.ExtraRecentTables] < 1 || p.Extra[results.ExtraRecentRules] < 1 {
			continue
		}
		if w, ok := probeAt(walks, dataplane, p.Services, p.Position); ok {
			bySize[p.Services] = append(bySize[p.Services], [2]results.Point{p, w})
		}
	}
	if len(bySize) == 0 {
		return nil
	}
	return newRecentCost(bySize[slices.Min(slices.Collect(maps.Keys(bySize)))], plainUs)
}

// newRecentCost prices a step from pairs of a recent probe and its walk
// probe (probeDifference per step).
func newRecentCost(pairs [][2]results.Point, plainUs float64) *RecentCost {
	first := pairs[0][0]
	lists := first.Extra[results.ExtraRecentTables] + 1
	rules := first.Extra[results.ExtraRecentRules]
	d := probeDifference(pairs, func(p results.Point) float64 {
		return p.Extra[results.ExtraRecentRules] * (p.Extra[results.ExtraRecentTables] + 1)
	})
	plain := plainUs / lists
	per := d.per
	per.Value, per.Lo, per.Hi = per.Value-plain, per.Lo-plain, per.Hi-plain
	return &RecentCost{Services: first.Services, Lists: int(lists), Rules: int(rules), Positions: d.positions, PerStepUs: per, Repetitions: d.repetitions}
}

// RecentStepsWarnAt is the xt_recent steps the slowest 1% of first packets
// take from which plan warns when the calibration did not time a step:
// 1,000 of them at the reference VM's 27 ns (results/plan-recent) add
// 27 µs, about a small cluster's whole first-packet p50.
const RecentStepsWarnAt = 1000

// withMatchCPU is c, a CPU per connection at q's position, with what the
// walk's addrtype matches and xt_recent steps add to it: CPU is spent per
// connection, so for connections spread uniformly it takes the mean
// Service's steps where the p50 takes the median's.
func (dm *DataplaneModel) withMatchCPU(c CostPrediction, q Query) CostPrediction {
	if q.Composition == nil || q.Composition.Walk == nil || dm.Lookup != LinearWalk {
		return c
	}
	w := q.Composition.Walk
	add := func(e Estimate) {
		c.Total = c.Total.Plus(e).NonNegative()
		c.Added = c.Added.Plus(e).NonNegative()
	}
	if s, _ := dm.addrTypeSurcharge(w.addrTypes(q.Position)); s != (Estimate{}) {
		add(s)
	}
	rw := w.Recent[dm.Dataplane]
	steps := rw.steps(q.Position)
	if q.Position == PositionUniform || q.Position == PositionMiddle {
		steps = rw.meanSteps()
	}
	if dm.Recent != nil && steps >= 1 {
		add(dm.Recent.PerStepUs.Scale(steps))
	}
	return c
}

// recentSurcharge is what a walk's xt_recent steps at position (or
// recentTail) add to a first packet (µs), with a warning when the
// calibration did not time a step.
func (dm *DataplaneModel) recentSurcharge(w *TracedWalk, position string) (Estimate, float64, string) {
	if w == nil || dm.Lookup != LinearWalk {
		return Estimate{}, 0, ""
	}
	rw := w.Recent[dm.Dataplane]
	steps := rw.steps(position)
	if steps < 1 {
		return Estimate{}, 0, ""
	}
	if dm.Recent == nil {
		if rw.steps(recentTail) < RecentStepsWarnAt {
			return Estimate{}, steps, ""
		}
		return Estimate{}, steps, fmt.Sprintf("%s: a first packet to a ClientIP-affinity Service walks xt_recent's list of its %d lists by name for each endpoint (the slowest 1%% of connections spread uniformly over the Services take %.0f steps); the calibration did not time a step (sweep.recentProbe, svclab plan calibrate), so they are not priced and such first packets (the p99 above all) are underestimated",
			dm.Dataplane, rw.Lists, rw.steps(recentTail))
	}
	beyond := ""
	if rw.Lists > dm.Recent.Lists {
		beyond = fmt.Sprintf("%s: the payload's %d xt_recent lists are %.1f× the %d the calibration timed a step of: their walks pass further out of the caches, priced at that step, likely low (first packets and syncs; the reference VM's step, 26 ns over 8,000 and 16,000 lists, was 46-61 ns over 32,000, past its 1 MiB L2: results/plan-recent/step-growth)",
			dm.Dataplane, rw.Lists, float64(rw.Lists)/float64(dm.Recent.Lists), dm.Recent.Lists)
	}
	if position == recentTail {
		return timesSteps(dm.Recent.PerStepUs, rw.tail()), steps, beyond
	}
	return dm.Recent.PerStepUs.Scale(steps), steps, beyond
}

// timesSteps is per step times steps, both uncertain: the interval's ends
// are the ends' products (both are positive where it matters; a negative
// per-step end gives at least 0).
func timesSteps(per, steps Estimate) Estimate {
	out := Estimate{Value: per.Value * steps.Value, Lo: per.Lo * steps.Lo, Hi: per.Hi * steps.Hi, NoInterval: per.NoInterval}
	if per.Lo < 0 {
		out.Lo = per.Lo * steps.Hi
	}
	return out
}

// withRecent is c with the surcharge of a walk's xt_recent steps at
// position (or recentTail), warning through warn, with the steps and that
// surcharge (nil when none).
func (dm *DataplaneModel) withRecent(c CostPrediction, q Query, position string, warn func(string)) (CostPrediction, float64, *Estimate) {
	if q.Composition == nil {
		return c, 0, nil
	}
	s, steps, w := dm.recentSurcharge(q.Composition.Walk, position)
	if w != "" {
		warn(w)
	}
	if s == (Estimate{}) || steps < 1 {
		return c, steps, nil
	}
	c.Total = c.Total.Plus(s).NonNegative()
	c.Added = c.Added.Plus(s).NonNegative()
	return c, steps, &s
}
