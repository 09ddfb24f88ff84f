package plot

import (
	"math"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
	"gonum.org/v1/plot/plotter"
)

// series is one line of a plot: a dataplane (and target position, unless
// positions are pooled) with its medians and its repetitions.
type series struct {
	dataplane string
	position  string       // "" when positions are pooled
	medians   plotter.XYs  // one per service count, by services
	reps      plotter.XYs  // every repetition
	fit       *results.Fit // the summary's fit for this line, if any
	all       []string     // every dataplane in the plot, for colours
}

type seriesKey struct{ dataplane, position string }

// collect groups the summary's points and the records' repetitions of one
// metric into series. Only positive, finite values are used: a zero means
// "not measured". position "" keeps every position as its own series;
// pooled merges positions (for metrics that do not depend on the target's
// position, such as sync time), taking the median over positions.
func collect(s *results.Summary, records []results.Record, m metric.Metric, position string, pooled bool) []series {
	keyOf := func(p results.Point) (seriesKey, bool) {
		if position != "" && p.Position != position {
			return seriesKey{}, false
		}
		if pooled {
			return seriesKey{dataplane: p.Dataplane}, true
		}
		return seriesKey{p.Dataplane, p.Position}, true
	}
	medians := groupValues(summaryPoints(s), m, keyOf)
	reps := groupValues(results.SweepPoints(records), m, keyOf)
	var out []series
	var names []string
	for _, k := range sortedKeys(medians) {
		sr := series{dataplane: k.dataplane, position: k.position, medians: medianXYs(medians[k]), reps: allXYs(reps[k])}
		if !pooled {
			sr.fit = findFit(s, k.dataplane, k.position, m.Name)
		}
		out = append(out, sr)
		if !slices.Contains(names, k.dataplane) {
			names = append(names, k.dataplane)
		}
	}
	for i := range out {
		out[i].all = names
	}
	return out
}

func summaryPoints(s *results.Summary) []results.Point {
	if s == nil {
		return nil
	}
	return s.Points
}

// groupValues maps each series to its values by service count.
func groupValues(points []results.Point, m metric.Metric, keyOf func(results.Point) (seriesKey, bool)) map[seriesKey]map[int][]float64 {
	out := map[seriesKey]map[int][]float64{}
	for _, p := range points {
		k, ok := keyOf(p)
		v := m.Point(p)
		if !ok || !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		if out[k] == nil {
			out[k] = map[int][]float64{}
		}
		out[k][p.Services] = append(out[k][p.Services], v)
	}
	return out
}

func sortedKeys(m map[seriesKey]map[int][]float64) []seriesKey {
	keys := make([]seriesKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b seriesKey) int {
		if c := dataplane.Compare(a.dataplane, b.dataplane); c != 0 {
			return c
		}
		return metric.ComparePositions(a.position, b.position)
	})
	return keys
}

// medianXYs returns one point per service count: the median of its values.
func medianXYs(byServices map[int][]float64) plotter.XYs {
	var xys plotter.XYs
	for _, n := range sortedServices(byServices) {
		xys = append(xys, plotter.XY{X: float64(n), Y: stats.Median(byServices[n])})
	}
	return xys
}

// allXYs returns every value, by service count then in the order given.
func allXYs(byServices map[int][]float64) plotter.XYs {
	var xys plotter.XYs
	for _, n := range sortedServices(byServices) {
		for _, v := range byServices[n] {
			xys = append(xys, plotter.XY{X: float64(n), Y: v})
		}
	}
	return xys
}

func sortedServices(byServices map[int][]float64) []int {
	ns := make([]int, 0, len(byServices))
	for n := range byServices {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// findFit returns the summary's fit of metric for a dataplane and position.
func findFit(s *results.Summary, dataplane, position, metric string) *results.Fit {
	if s == nil {
		return nil
	}
	for i, f := range s.Fits {
		if f.Dataplane == dataplane && f.Position == position && f.Metric == metric {
			return &s.Fits[i]
		}
	}
	return nil
}
