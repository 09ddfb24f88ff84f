package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/stats"
)

// DefaultConfidence is the level of the medians' intervals.
const DefaultConfidence = 0.95

// Options configure Compare.
type Options struct {
	// Alpha is the significance level of the Mann-Whitney U test
	// (stats.DefaultAlpha, 0.05, when 0).
	Alpha float64
	// Confidence is the level of each median's interval
	// (DefaultConfidence when 0).
	Confidence float64
	// BaseDataplane and NewDataplane restrict each side to one dataplane
	// and match points on services and position, so that different
	// dataplanes can be compared. Either defaults to the other. When both
	// are empty and each run has a single, different dataplane, those two
	// are compared.
	BaseDataplane, NewDataplane string
}

// Change is the verdict on one row.
type Change int

// Changes.
const (
	// Unchanged: the change is not significant ("~").
	Unchanged Change = 0
	// Better: significant, in the metric's better direction.
	Better Change = 1
	// Worse: significant, in the metric's worse direction.
	Worse Change = -1
)

// Row is one metric at one pair of points.
type Row struct {
	Metric Metric
	// Base and New are the compared points (their dataplanes differ when
	// dataplanes are compared).
	Base, New Key
	// BaseStats and NewStats are each side's median with its interval.
	BaseStats, NewStats stats.Summary
	// DeltaPct is the change of the median in percent, P the two-sided
	// Mann-Whitney U p-value, Significant is P <= alpha.
	DeltaPct    float64
	P           float64
	Significant bool
	Change      Change
	// Detectable says the sample sizes allow P <= alpha at all.
	Detectable bool
	// Shift is the Hodges-Lehmann estimate of the change in percent with
	// its 95% interval: what the gate reads to tell a change known to be
	// small (PASS) from one the samples cannot rule out (INCONCLUSIVE).
	Shift stats.Shift
	// Pooled is the number of points a pooled row aligns and pools (see
	// pooled.go); 0 for a row of one point.
	Pooled int
	// Warnings are benchmath's (e.g. too few samples) and the loader's.
	Warnings []string
}

// Point names the row's pair of points (see PointLabel), or for a pooled
// row its dataplanes and the number of points it pools.
func (r Row) Point() string {
	if r.Pooled > 0 {
		return pooledLabel(r)
	}
	return PointLabel(r.Base, r.New)
}

// Result is a comparison of two runs.
type Result struct {
	// Base and New are the compared runs.
	Base, New *Run
	// Alpha is the significance level, Confidence the intervals' level.
	Alpha, Confidence float64
	// Matching says how points were paired.
	Matching string
	// AcrossDataplanes is true when the compared dataplanes differ.
	AcrossDataplanes bool
	Rows             []Row
	// Pooled holds one row per metric and dataplane pair over every
	// matched point, aligned on each point's base median: the gate's
	// primary comparisons.
	Pooled []Row
	// Warnings concern the whole comparison: environment differences,
	// one-sided points, samples too few for any significance.
	Warnings []string
	// Missing are the comparisons base has samples for and new has none:
	// a point (a whole dataplane) or a metric new did not measure.
	Missing []Missing
	// Timelines are the timeline runs of both, paired by dataplane.
	Timelines []TimelineComparison
}

// Missing is a metric at a point measured in base, not in new.
type Missing struct {
	Metric Metric
	Point  string
}

// String is the gate's line, e.g. "MISSING p50_us nftables/1000/last:
// measured in base, not in new".
func (m Missing) String() string {
	return fmt.Sprintf("MISSING %s %s: measured in base, not in new", m.Metric.Name, m.Point)
}

// Compare compares every metric at every point the two runs share. It
// fails with ErrNoCommonPoints (wrapped) when they share none, and when a
// chosen dataplane is missing.
func Compare(base, new *Run, opts Options) (*Result, error) {
	opts = withDefaults(opts)
	bs, ns := collect(base.Records), collect(new.Records)
	m, err := matchPoints(bs, ns, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Base: base, New: new, Alpha: opts.Alpha, Confidence: opts.Confidence,
		Matching: m.description, AcrossDataplanes: m.acrossDataplanes}
	res.Warnings = append(res.Warnings, prefixed("base", base.Warnings)...)
	res.Warnings = append(res.Warnings, prefixed("new", new.Warnings)...)
	res.Warnings = append(res.Warnings, environmentWarnings(base.Meta, new.Meta)...)
	res.Warnings = append(res.Warnings, m.oneSidedWarnings()...)
	for _, metric := range allMetrics() {
		for _, p := range m.pairs {
			if row, ok := compareOne(metric, p, bs, ns, opts); ok {
				res.Rows = append(res.Rows, row)
			} else if w := oneSidedMetric(metric, p, bs, ns); w != "" {
				res.Warnings = append(res.Warnings, w)
				if len(bs.values[p.base][metric.Name]) > 0 {
					res.Missing = append(res.Missing, Missing{Metric: metric, Point: PointLabel(p.base, p.new)})
				}
			}
		}
		for _, k := range m.baseOnly {
			if isFairness(k) == metric.OfFairness && len(bs.values[k][metric.Name]) > 0 {
				res.Missing = append(res.Missing, Missing{Metric: metric, Point: k.String()})
			}
		}
	}
	res.Timelines = compareTimelines(base.Records, new.Records, opts.Alpha)
	if len(res.Rows) == 0 && len(res.Timelines) == 0 {
		return nil, fmt.Errorf("compare %s with %s: %w (base: %s; new: %s)",
			base.Path, new.Path, ErrNoCommonPoints, describeSamples(base, bs), describeSamples(new, ns))
	}
	res.Warnings = append(res.Warnings, powerWarning(res.Rows, opts.Alpha)...)
	res.Pooled = pooledRows(m, bs, ns, opts)
	return res, nil
}

func withDefaults(opts Options) Options {
	if opts.Alpha == 0 {
		opts.Alpha = stats.DefaultAlpha
	}
	if opts.Confidence == 0 {
		opts.Confidence = DefaultConfidence
	}
	return opts
}

// compareOne compares one metric at one pair of points; ok is false when
// either side has no sample of it.
func compareOne(metric Metric, p pair, bs, ns samples, opts Options) (Row, bool) {
	if isFairness(p.base) != metric.OfFairness {
		return Row{}, false
	}
	b, n := bs.values[p.base][metric.Name], ns.values[p.new][metric.Name]
	if len(b) == 0 || len(n) == 0 {
		return Row{}, false
	}
	return rowOf(metric, p.base, p.new, b, n, opts), true
}

// allMetrics lists the compared metrics, sweep metrics first.
func allMetrics() []Metric { return slices.Concat(SweepMetrics, FairnessMetrics) }

// rowOf compares metric's base values b with its new values n.
func rowOf(metric Metric, base, new Key, b, n []float64, opts Options) Row {
	c := stats.Compare(b, n, opts.Alpha)
	row := Row{
		Metric: metric, Base: base, New: new,
		BaseStats: stats.Summarize(b, opts.Confidence), NewStats: stats.Summarize(n, opts.Confidence),
		DeltaPct: c.DeltaPct, P: c.P, Significant: c.Significant,
		Detectable: MinPValue(len(b), len(n)) <= opts.Alpha,
		Shift:      stats.ShiftInterval(b, n, opts.Confidence),
	}
	row.Warnings = distinct(slices.Concat(c.Warnings, row.BaseStats.Warnings, row.NewStats.Warnings))
	switch {
	case !row.Significant || row.DeltaPct == 0:
		row.Change = Unchanged
	case metric.worse(row.DeltaPct):
		row.Change = Worse
	default:
		row.Change = Better
	}
	return row
}

func isFairness(k Key) bool { return k.Service != "" }

// oneSidedMetric warns when a metric was measured at a point on one side
// only.
func oneSidedMetric(metric Metric, p pair, bs, ns samples) string {
	if isFairness(p.base) != metric.OfFairness {
		return ""
	}
	b, n := len(bs.values[p.base][metric.Name]), len(ns.values[p.new][metric.Name])
	switch {
	case b > 0 && n == 0:
		return fmt.Sprintf("%s %s: measured in base only", metric.Name, PointLabel(p.base, p.new))
	case n > 0 && b == 0:
		return fmt.Sprintf("%s %s: measured in new only", metric.Name, PointLabel(p.base, p.new))
	}
	return ""
}

func prefixed(side string, warnings []string) []string {
	out := make([]string, len(warnings))
	for i, w := range warnings {
		out[i] = side + ": " + w
	}
	return out
}

// describeSamples says what a run holds, for the no-common-points error.
func describeSamples(r *Run, s samples) string {
	return fmt.Sprintf("%s run with %d points on %s", r.Kind(), len(s.keys), strings.Join(s.dataplanes(), ", "))
}

// distinct drops repeated texts, keeping the first of each.
func distinct(texts []string) []string {
	var out []string
	for _, t := range texts {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
