package cost

import (
	"maps"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/results"
	"gonum.org/v1/gonum/stat"
)

// LoadSpread is how much one load's sync time (or kernel memory) scatters
// around its size's median: the pooled standard deviation of ln(value)
// over the repetitions at each of the larger sizes. A sync curve is fitted on the
// sizes' medians, and its interval for the mean says where that curve
// lies, not what a sweep will measure: on this project's reference VM
// nftables' full sync of the same 50,000 Services took 5.4 to 10.7 s
// over 8 loads in one run (results/plan-holdout/nft-probe-vs-point), and
// the recorded holdouts' intervals missed 5 of 11 such medians.
type LoadSpread struct {
	// SD is the pooled standard deviation of ln(value) of one load,
	// DF its degrees of freedom (the loads less one per size).
	SD float64 `json:"sd_ln"`
	DF int     `json:"df"`
	// Repetitions is how many loads a measurement at the predicted size is
	// the median of: as many as the largest calibrated size had.
	Repetitions int `json:"repetitions"`
	// FromRules is the smallest ruleset pooled: loads of tiny rulesets
	// scatter by fixed costs that a large one does not have.
	FromRules float64 `json:"from_rules"`
}

// loadSpreadFraction: the spread pools the sizes of at least
// MaxRules/loadSpreadFraction rules, as the power form does.
const loadSpreadFraction = powerFromFraction

// fitLoadSpread pools the scatter of the loads' value at the sizes of at
// least maxRules/loadSpreadFraction rules (nil when fewer than 2 degrees
// of freedom are left, or no load was recorded: a summary alone has the
// medians, not the loads).
func fitLoadSpread(loads []results.Point, mode string, maxRules float64, value func(results.Point) float64) *LoadSpread {
	bySize := map[int][]float64{}
	for _, p := range loads {
		if v := value(p); v > 0 && float64(pointRules(mode, p)) >= maxRules/loadSpreadFraction {
			bySize[p.Services] = append(bySize[p.Services], math.Log(v))
		}
	}
	s := &LoadSpread{FromRules: maxRules / loadSpreadFraction}
	sumSquares, largest := 0.0, -1
	// In size order: a sum of floats in a map's order differs in its last
	// bits from one call to the next.
	for _, n := range slices.Sorted(maps.Keys(bySize)) {
		logs := bySize[n]
		if len(logs) < 2 {
			continue
		}
		sumSquares += squaredDeviations(logs)
		s.DF += len(logs) - 1
		if n > largest {
			largest, s.Repetitions = n, len(logs)
		}
	}
	if s.DF < 2 {
		return nil
	}
	s.SD = math.Sqrt(sumSquares / float64(s.DF))
	return s
}

// squaredDeviations is the sum of squared deviations from the mean (0 for
// fewer than 2 values).
func squaredDeviations(values []float64) float64 {
	if len(values) < 2 {
		return 0
	}
	return stat.Variance(values, nil) * float64(len(values)-1)
}

// widen adds to e's interval the scatter of a median of Repetitions loads
// (π/2·SD²/R in ln of the value, Student's t over DF), in quadrature with the
// fit's own relative half-widths: the interval is then for what a sweep
// will measure at that size. An estimate at or below zero, or without an
// interval of its own (a fit with no spare degrees of freedom), is
// returned as it is: the loads' scatter alone would pass for the whole
// uncertainty.
func (s *LoadSpread) widen(e Estimate) Estimate {
	if s == nil || s.SD == 0 || e.Value <= 0 || e.NoInterval {
		return e
	}
	load := tQuantile(s.DF) * s.SD * math.Sqrt(math.Pi/2/float64(max(s.Repetitions, 1)))
	if e.Lo > 0 {
		e.Lo = e.Value * math.Exp(-math.Hypot(math.Log(e.Value/e.Lo), load))
	}
	e.Hi = e.Value * math.Exp(math.Hypot(math.Log(math.Max(e.Hi, e.Value)/e.Value), load))
	return e
}

// dataplaneLoads are one dataplane's recorded loads a sync curve's or the
// memory line's spread is pooled over: the points' (one per size and repetition, N ≤ maxN, 0 for
// all) and the sync probes' at sizes the points do not have, as
// withSyncProbes joins their medians.
func dataplaneLoads(run *Run, dataplane string, maxN int) []results.Point {
	var out []results.Point
	sizes := map[int]bool{}
	for _, p := range run.PointLoads {
		if p.Dataplane == dataplane && (maxN == 0 || p.Services <= maxN) {
			out = append(out, p)
			sizes[p.Services] = true
		}
	}
	for _, p := range run.SyncProbeLoads {
		if p.Dataplane == dataplane && !sizes[p.Services] {
			out = append(out, p)
		}
	}
	return out
}

// loadsOf are a run's per-repetition loads from its records: one point
// record per dataplane, size and repetition (every position of a
// repetition shares its load), and every sync-probe record.
func loadsOf(records []results.Record) (points, probes []results.Point) {
	type key struct {
		dataplane      string
		services, reps int
	}
	seen := map[key]bool{}
	for _, r := range records {
		if r.Point == nil {
			continue
		}
		p := *r.Point
		switch r.Type {
		case results.TypePoint:
			k := key{p.Dataplane, p.Services, p.Repetition}
			if !seen[k] {
				seen[k] = true
				points = append(points, p)
			}
		case results.TypeSyncProbe:
			probes = append(probes, p)
		}
	}
	return points, probes
}

// withLoadSpread sets c's Load from the loads at its larger sizes (no-op
// on a nil curve).
func (c *SyncCurve) withLoadSpread(loads []results.Point, mode string, value func(results.Point) float64) {
	if c != nil {
		c.Load = fitLoadSpread(loads, mode, c.MaxRules, value)
	}
}
