package cost

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// Metric names the cost model fits (sim/metric's).
const (
	MetricP50             = metric.P50
	MetricP99             = metric.P99
	MetricCPU             = metric.CPUPerConn
	MetricSyncFull        = metric.SyncFull
	MetricSyncIncremental = metric.SyncIncremental
	// MetricSyncPerChange is what each further change adds to a partial
	// sync (sweep.incrementalBatch).
	MetricSyncPerChange = "sync per batched change (s)"
)

// calibrateDataplane fits every curve of one dataplane from the run: its
// sync probes (all of every dataplane's) join its points in the full-sync
// fit, its loads (dataplaneLoads) give the sync curves' and the memory
// line's LoadSpread, the walks it timed on its machine price some
// dataplanes' syncs (iptables-nft-restore's chain list, the kernel's chain
// dump to nft), and its repetitions floor the map-lookup constants'
// intervals (withMedianFloor).
func calibrateDataplane(name string, run *Run, opts Options) (DataplaneModel, error) {
	lookup, err := LookupOf(name)
	if err != nil {
		return DataplaneModel{}, err
	}
	mode, _ := ModeOf(name)
	points := calibrationPoints(run.Points, name, opts.MaxN)
	reps := calibrationPoints(run.PointRepetitions, name, opts.MaxN)
	dm := DataplaneModel{Dataplane: name, Lookup: lookup, Mode: mode}
	p50Points := inRange(p50Positions(points, lookup), opts.Range)
	p50 := func(p results.Point) float64 { return p.P50us }
	x, y := costXY(p50Points, lookup, p50)
	if dm.P50, err = fitCostCurve(MetricP50, lookup, x, y); err != nil {
		return dm, err
	}
	dm.P50.withMediansWherePoor(x, y, opts.MinR2)
	dm.P50.withMedianFloor(p50Points, reps, p50)
	dm.MaxServices = maxServices(p50Points)
	dm.Repetitions = fewestRepetitions(reps)
	dm.Warnings = append(dm.Warnings, dm.P50.warnings(name, opts.MinR2)...)
	// A uniform position's p99 mixes services at every position: it is not
	// the p99 at (N+1)/2 rules, so only fixed targets calibrate p99.
	p99Points := inRange(positioned(points, PositionLast, PositionMiddle), opts.Range)
	dm.P99 = optionalCost(&dm, MetricP99, p99Points, reps, opts, func(p results.Point) float64 { return p.P99us })
	if lookup == LinearWalk {
		dm.P99Tail = fitTailRatio(p99Points)
	}
	uniformPoints := inRange(positioned(points, PositionUniform), opts.Range)
	if dm.P50Uniform = optionalCost(&dm, MetricP50+" (uniform)", uniformPoints, reps, opts, p50); dm.P50Uniform != nil {
		probes := lookupProbes(uniformPoints, run.SyncProbes, name, lookup)
		dm.P50Uniform.withLogGrowth(costXY(uniformPoints, lookup, p50))
		dm.P50Uniform.withLookupProbes(costXY(probeSegment(uniformPoints, probes), lookup, p50))
	}
	dm.P99Uniform = optionalCost(&dm, MetricP99+" (uniform)", uniformPoints, reps, opts, func(p results.Point) float64 { return p.P99us })
	lastPoints := inRange(positioned(points, PositionLast), opts.Range)
	// The throughput batch that measures CPU always targets the last service.
	dm.CPU = optionalCost(&dm, MetricCPU, lastPoints, reps, opts, func(p results.Point) float64 { return p.CPUusPerConn })
	perSize := onePerSize(points)
	info, _ := modelled(name)
	probed := withSyncProbes(perSize, run.SyncProbes, name)
	loads := dataplaneLoads(run, name, opts.MaxN)
	var fullWalk, partialWalk *ChainListPrice
	if info.ChainListRestore {
		fullWalk, partialWalk = newChainListPrice(run.ChainListWalk, results.ChainListFull), newChainListPrice(run.ChainListWalk, results.ChainListPartial)
	}
	var dump *ChainDumpPrice
	if info.ChainDump {
		dump = newChainDumpPrice(run.ChainDumpWalk)
	}
	var anonymousSets *AnonymousSetPrice
	if mode == string(dataplane.ModeNFTables) {
		anonymousSets = newAnonymousSetPrice(run.AnonymousSetWalk)
	}
	// A sweep without a mix loads IPv4 fillers alone: one restore a sync.
	oneFamily := !run.mixed()
	dm.SyncFull = optionalSync(&dm, MetricSyncFull, probed, opts, syncForm{quadratic: info.FullSyncQuadratic, chainList: fullWalk, anonymousSets: anonymousSets, oneFamily: oneFamily},
		func(p results.Point) float64 { return p.SyncFullS })
	incremental := syncForm{chainList: partialWalk, chainDump: dump, partial: true, oneFamily: oneFamily, replacesTable: info.RestoreReplacesTable}
	if anonymousSets != nil && anonymousSets.Listing != nil {
		incremental.anonymousSets = anonymousSets
	}
	dm.SyncIncremental = optionalSync(&dm, MetricSyncIncremental, probed, opts, incremental, func(p results.Point) float64 { return p.SyncIncrementalS })
	dm.SyncFull.withLoadSpread(loads, mode, func(p results.Point) float64 { return p.SyncFullS })
	dm.SyncIncremental.withLoadSpread(loads, mode, func(p results.Point) float64 { return p.SyncIncrementalS })
	dm.SyncPerChange, dm.SyncPerChangeKind = fitPerChange(&dm, perSize)
	dm.KernelMem = fitMemLine(probed, loads, mode, info.HashedByNFTables())
	return dm, nil
}

// fitPerChange fits what each further change adds to a partial sync: a
// line against rules through each size's (batched sync − one change's) /
// (changes − 1), differences below zero (noise larger than the cost)
// included, as leaving them out would bias it up. A line, not the full
// syncs' choice of forms: the difference of two noisy syncs fits no form
// well, and a power form's interval in log space is unbounded. Nil when
// the sweep timed no batch. The batches are of one kind (endpoint changes
// or Service creations, the first batched point's), returned with it.
func fitPerChange(dm *DataplaneModel, points []results.Point) (*SyncCurve, string) {
	var rules, seconds []float64
	kind, kinds := "", 0
	for _, p := range points {
		if p.SyncBatch > 1 && p.SyncBatchS > 0 && p.SyncIncrementalS > 0 {
			if kinds++; kinds == 1 {
				kind = p.SyncBatchKind
			} else if p.SyncBatchKind != kind {
				continue
			}
			rules = append(rules, float64(pointRules(dm.Mode, p)))
			seconds = append(seconds, (p.SyncBatchS-p.SyncIncrementalS)/float64(p.SyncBatch-1))
		}
	}
	if len(rules) == 0 {
		return nil, ""
	}
	if len(rules) < kinds {
		dm.Warnings = append(dm.Warnings, fmt.Sprintf("%s %s: the sweep batched two kinds of change; only the %s batches are fitted", dm.Dataplane, MetricSyncPerChange, ChurnKindName(kind)))
	}
	if n := distinctCount(rules); n < 3 {
		dm.Warnings = append(dm.Warnings, fmt.Sprintf("%s %s: %d sizes timed a batch, need 3: not predicted", dm.Dataplane, MetricSyncPerChange, n))
		return nil, ""
	}
	lin, err := stats.LinearFit(rules, seconds)
	if err != nil {
		dm.Warnings = append(dm.Warnings, fmt.Sprintf("%s %s: %v: not predicted", dm.Dataplane, MetricSyncPerChange, err))
		return nil, ""
	}
	return &SyncCurve{Metric: MetricSyncPerChange, Form: FormLinear, R2: lin.R2, LinearR2: lin.R2, Points: len(rules),
		MaxRules: slices.Max(rules), Linear: lin, Selected: "fit"}, kind
}

// p50Positions are the points of the p50 curve: every position for a
// rule walk (evaluations tell them apart); for a map lookup the fixed
// positions alone when there are any, as one hot service's lookup stays in
// the caches where uniformly spread ones do not (P50Uniform has those).
func p50Positions(points []results.Point, lookup Lookup) []results.Point {
	if fixed := positioned(points, PositionLast, PositionMiddle); lookup == MapLookup && len(fixed) > 0 {
		return fixed
	}
	return positioned(points, PositionLast, PositionMiddle, PositionUniform)
}

// optionalCost fits a cost curve (its interval floored by the points'
// repetitions among reps), or records why it could not.
func optionalCost(dm *DataplaneModel, metric string, points, reps []results.Point, opts Options, value func(results.Point) float64) *CostCurve {
	x, y := costXY(points, dm.Lookup, value)
	c, err := fitCostCurve(metric, dm.Lookup, x, y)
	if err != nil {
		dm.Warnings = append(dm.Warnings, dm.Dataplane+" "+err.Error()+": not predicted")
		return nil
	}
	c.withMedianFloor(points, reps, value)
	dm.Warnings = append(dm.Warnings, c.warnings(dm.Dataplane, opts.MinR2)...)
	return &c
}

// optionalSync fits a sync curve against rules, or records why it could not.
func optionalSync(dm *DataplaneModel, metric string, points []results.Point, opts Options, form syncForm, value func(results.Point) float64) *SyncCurve {
	var rules, seconds []float64
	for _, p := range points {
		if v := value(p); v > 0 {
			rest, err := form.withoutChainList(dm.Mode, p, v)
			if err != nil {
				dm.Warnings = append(dm.Warnings, fmt.Sprintf("%s %s: %v: not predicted", dm.Dataplane, metric, err))
				return nil
			}
			rules, seconds = append(rules, float64(pointRules(dm.Mode, p))), append(seconds, rest)
		}
	}
	c, err := fitSyncCurve(metric, rules, seconds, opts.MinR2, form)
	if err != nil {
		dm.Warnings = append(dm.Warnings, dm.Dataplane+" "+err.Error()+" (0 = not timed): not predicted")
		return nil
	}
	c.ChainList, c.ChainDump, c.AnonymousSets, c.OneFamily = form.chainList, form.chainDump, form.anonymousSets, form.oneFamily
	c.Composition = chainCompositionOf(dm, form, points, c)
	if form.partial {
		c.Composition, c.Partial = partialCompositionOf(dm, form, points)
		c.UnpricedPartial = unpricedPartialOf(dm.Mode, form, points)
	}
	if c.R2 < opts.MinR2 {
		w := fmt.Sprintf("%s %s: poor fit even in the best form (%s, R² %.3f, %d sizes); predictions are doubtful",
			dm.Dataplane, metric, c.Form, c.R2, c.Points)
		if c.Form == FormLinear && lineUnderestimatesLargest(c.Linear, rules, seconds) {
			w += "; the times grow faster than a line, so larger rulesets will likely take longer than predicted"
		}
		dm.Warnings = append(dm.Warnings, w)
	}
	if c.BetterForm != "" {
		dm.Warnings = append(dm.Warnings, fmt.Sprintf("%s %s: a line fits (R² %.3f) but a %s fits markedly better; the line may underestimate beyond the calibrated sizes",
			dm.Dataplane, metric, c.R2, c.BetterForm))
	}
	return &c
}

// calibrationPoints are one dataplane's points with N ≤ maxN (0: all).
func calibrationPoints(all []results.Point, dataplane string, maxN int) []results.Point {
	var out []results.Point
	for _, p := range all {
		if p.Dataplane == dataplane && (maxN == 0 || p.Services <= maxN) {
			out = append(out, p)
		}
	}
	return out
}

// fewestRepetitions is the fewest repetitions any calibrated size and
// position has among reps (one point per repetition), 0 without any.
func fewestRepetitions(reps []results.Point) int {
	type key struct {
		services int
		position string
	}
	count := map[key]int{}
	for _, p := range reps {
		count[key{p.Services, p.Position}]++
	}
	fewest := 0
	for _, n := range count {
		if fewest == 0 || n < fewest {
			fewest = n
		}
	}
	return fewest
}

func positioned(points []results.Point, positions ...string) []results.Point {
	var out []results.Point
	for _, p := range points {
		if slices.Contains(positions, p.Position) {
			out = append(out, p)
		}
	}
	return out
}

// inRange keeps, for FitUpperHalf, the points with N at least half the
// largest N.
func inRange(points []results.Point, r FitRange) []results.Point {
	if r != FitUpperHalf {
		return points
	}
	half := float64(maxServices(points)) / 2
	var out []results.Point
	for _, p := range points {
		if float64(p.Services) >= half {
			out = append(out, p)
		}
	}
	return out
}

func maxServices(points []results.Point) int {
	n := 0
	for _, p := range points {
		n = max(n, p.Services)
	}
	return n
}

// costXY returns the measured (positive, finite) values against
// evaluations (LinearWalk) or services (MapLookup).
func costXY(points []results.Point, lookup Lookup, value func(results.Point) float64) (x, y []float64) {
	for _, p := range points {
		v := value(p)
		if !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		ev := float64(p.Services)
		if lookup == LinearWalk {
			ev, _ = Evaluations(lookup, p.Position, p.Services)
		}
		x, y = append(x, ev), append(y, v)
	}
	return x, y
}

// onePerSize keeps one point per service count: sync times and ruleset
// sizes are measured once per lab, and every position repeats them.
func onePerSize(points []results.Point) []results.Point {
	var out []results.Point
	for _, p := range points {
		if !slices.ContainsFunc(out, func(q results.Point) bool { return q.Services == p.Services }) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b results.Point) int { return cmp.Compare(a.Services, b.Services) })
	return out
}

// withSyncProbes adds the dataplane's sync probes to its calibration
// points (one per size), at sizes the points do not have, in size order:
// full and incremental syncs and kernel memory are fitted on both, so that
// growth faster than a line past the traffic points (libiptc's restore,
// issue 23) is measured, not guessed. A probe recorded before probes timed
// an incremental sync has none (0), which the incremental fit skips.
func withSyncProbes(perSize, probes []results.Point, dataplane string) []results.Point {
	out := slices.Clone(perSize)
	for _, p := range probes {
		if p.Dataplane == dataplane && !slices.ContainsFunc(out, func(q results.Point) bool { return q.Services == p.Services }) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b results.Point) int { return cmp.Compare(a.Services, b.Services) })
	return out
}

// lookupProbes are the sync probes of a map-lookup dataplane that also
// measured the uniform position (lab/sweep's lookup probes), at sizes the
// points do not have: the uniform p50's growth with the map's size past
// the points.
func lookupProbes(points, probes []results.Point, dataplane string, lookup Lookup) []results.Point {
	if lookup != MapLookup {
		return nil
	}
	var out []results.Point
	for _, p := range uniformProbes(probes) {
		if p.Dataplane == dataplane && !slices.ContainsFunc(points, func(q results.Point) bool { return q.Services == p.Services }) {
			out = append(out, p)
		}
	}
	return out
}

// probeSegment is, with lookup probes, the largest points' size and the
// probes above it: the growth nearest a prediction past the points (a
// lookup's cost does not follow one line in ln N from 1 service on: it
// steps where the map outgrows a cache). Nil without probes.
func probeSegment(points, probes []results.Point) []results.Point {
	if len(probes) == 0 {
		return nil
	}
	largest := maxServices(points)
	var out []results.Point
	for _, p := range points {
		if p.Services == largest {
			out = append(out, p)
		}
	}
	return append(out, probes...)
}

// pointRules is the ruleset a point loaded: its recorded rules, or, for a
// run whose engine does not count them (kube-proxy's own proxier), the
// synthetic ruleset of its services with one endpoint each: proportional
// to the real one within a uniform sweep, which is what a fit against size
// needs.
func pointRules(mode string, p results.Point) int {
	if p.Rules > 0 {
		return p.Rules
	}
	s, _ := countsOf(mode, p.Services, 1)
	return s.Rules
}
