package metric

import (
	"cmp"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
	"gonum.org/v1/gonum/stat"
)

// FitMetrics are the metrics Aggregate fits against the number of services.
var FitMetrics = []string{P50, P90, P99, CPUPerConn, SyncFull}

// MinFitServiceCounts is the fewest distinct service counts a fit needs.
const MinFitServiceCounts = 3

// pointKey identifies one sweep point: a dataplane at a service count and
// target position.
type pointKey struct {
	dataplane string
	services  int
	position  string
}

// Aggregate turns the per-repetition point records of a sweep into one
// point per dataplane × services × position and fits each of FitMetrics
// against services per dataplane × position.
//
// A point's measurements are medians over its repetitions; Connections and
// Errors are totals; Repetitions counts the repetitions; Payload is the first
// repetition's; Histogram and Raw are dropped. A zero means "not measured":
// medians are taken over the non-zero values only (zero if there are none).
//
// Fits are least-squares lines through the medians (sim/stats.LinearFit,
// x = services), made only when at least MinFitServiceCounts service counts
// have a measured value. Every fit is in nanoseconds per added service and
// an intercept in microseconds, whatever the metric's unit: a slope in
// µs/service is multiplied by 1e3, and sync_full_s (seconds) by 1e9, so a
// full sync growing by 20 µs per service reads 20000 ns/service. For latency
// metrics, NsPerRule is the slope divided by the extra rules a first packet
// evaluates per added service, when the points carry RulesEvaluated.
//
// Points come in dataplane.Compare, then ComparePositions, then
// service order; fits in dataplane, position, FitMetrics order.
func Aggregate(records []results.Record) (points []results.Point, fits []results.Fit) {
	groups := map[pointKey][]results.Point{}
	for _, r := range records {
		if r.Type != results.TypePoint || r.Point == nil {
			continue
		}
		p := *r.Point
		k := pointKey{p.Dataplane, p.Services, p.Position}
		groups[k] = append(groups[k], p)
	}
	for _, k := range sortedPointKeys(groups) {
		points = append(points, medianPoint(groups[k]))
	}
	return points, FitPoints(points)
}

// AggregateWalkProbes merges the repetitions of a sweep's walk-probe
// records (results.TypeWalkProbe) as Aggregate merges its points, with
// the standard deviation of the repetitions' p50, and the median and
// standard deviation of their tails (p99 − p50), in Extra.
func AggregateWalkProbes(records []results.Record) []results.Point {
	return aggregateProbes(records, results.TypeWalkProbe)
}

// AggregateAddrTypeProbes merges the repetitions of a sweep's addrtype
// probes (results.TypeAddrTypeProbe) as AggregateWalkProbes does, keeping
// the rules each added (Extra[results.ExtraAddrTypeRules]).
func AggregateAddrTypeProbes(records []results.Record) []results.Point {
	return aggregateProbesKeeping(records, results.TypeAddrTypeProbe, results.ExtraAddrTypeRules)
}

// AggregateRecentProbes merges the repetitions of a sweep's recent probes
// (results.TypeRecentProbe) as AggregateWalkProbes does, keeping the lists
// each created and the rules that check its last
// (Extra[results.ExtraRecentTables], Extra[results.ExtraRecentRules]).
func AggregateRecentProbes(records []results.Record) []results.Point {
	return aggregateProbesKeeping(records, results.TypeRecentProbe, results.ExtraRecentTables, results.ExtraRecentRules)
}

// aggregateProbesKeeping is aggregateProbes for probes of type typ, keeping
// the Extra values keys of their records (the same in every repetition).
func aggregateProbesKeeping(records []results.Record, typ string, keys ...string) []results.Point {
	points := aggregateProbes(records, typ)
	for i := range points {
		p := &points[i]
		for _, r := range records {
			if q := r.Point; r.Type == typ && q != nil && q.Dataplane == p.Dataplane && q.Services == p.Services && q.Position == p.Position {
				if p.Extra == nil {
					p.Extra = map[string]float64{}
				}
				for _, k := range keys {
					p.Extra[k] = q.Extra[k]
				}
				break
			}
		}
	}
	return points
}

// aggregateProbes merges the probe records of type typ: medians, with the
// standard deviation of the repetitions' p50 and the median and standard
// deviation of their tails in Extra.
func aggregateProbes(records []results.Record, typ string) []results.Point {
	probes := recordsOfType(records, typ)
	if len(probes) == 0 {
		return nil
	}
	points, _ := Aggregate(probes)
	for i := range points {
		p := &points[i]
		var p50s, tails []float64
		for _, r := range probes {
			if q := r.Point; q.Dataplane == p.Dataplane && q.Services == p.Services && q.Position == p.Position && q.P50us > 0 {
				p50s = append(p50s, q.P50us)
				if q.P99us >= q.P50us {
					tails = append(tails, q.P99us-q.P50us)
				}
			}
		}
		if len(p50s) > 1 {
			p.Extra = map[string]float64{results.ExtraP50SD: stat.StdDev(p50s, nil)}
		}
		if len(tails) > 1 {
			p.Extra[results.ExtraTailUs] = stats.Median(tails)
			p.Extra[results.ExtraTailSD] = stat.StdDev(tails, nil)
		}
	}
	return points
}

// AggregateSyncProbes merges the repetitions of a sweep's sync-probe
// records (results.TypeSyncProbe) as Aggregate merges its points: the
// median full sync and kernel memory per dataplane and size.
func AggregateSyncProbes(records []results.Record) []results.Point {
	probes := recordsOfType(records, results.TypeSyncProbe)
	if len(probes) == 0 {
		return nil
	}
	points, _ := Aggregate(probes)
	return points
}

// recordsOfType are the records of type typ that hold a point, as point
// records (the form Aggregate reads).
func recordsOfType(records []results.Record, typ string) []results.Record {
	var out []results.Record
	for _, r := range records {
		if r.Type == typ && r.Point != nil {
			out = append(out, results.Record{Type: results.TypePoint, Point: r.Point})
		}
	}
	return out
}

func sortedPointKeys(groups map[pointKey][]results.Point) []pointKey {
	keys := make([]pointKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b pointKey) int {
		if c := dataplane.Compare(a.dataplane, b.dataplane); c != 0 {
			return c
		}
		if c := ComparePositions(a.position, b.position); c != 0 {
			return c
		}
		return cmp.Compare(a.services, b.services)
	})
	return keys
}

// medianPoint merges the repetitions of one sweep point.
func medianPoint(reps []results.Point) results.Point {
	first := reps[0]
	out := results.Point{Dataplane: first.Dataplane, Services: first.Services, Position: first.Position, Repetitions: len(reps)}
	med := func(field func(results.Point) float64) float64 { return measuredMedian(reps, field) }
	medInt := func(field func(results.Point) float64) int64 { return int64(math.Round(med(field))) }
	for _, r := range reps {
		out.Connections += r.Connections
		out.Errors += r.Errors
		if out.Payload == nil {
			out.Payload = r.Payload
		}
	}
	out.P50us = med(func(p results.Point) float64 { return p.P50us })
	out.P90us = med(func(p results.Point) float64 { return p.P90us })
	out.P99us = med(func(p results.Point) float64 { return p.P99us })
	out.P999us = med(func(p results.Point) float64 { return p.P999us })
	out.MeanUs = med(func(p results.Point) float64 { return p.MeanUs })
	out.CPUusPerConn = med(func(p results.Point) float64 { return p.CPUusPerConn })
	out.ConnPerSec = med(func(p results.Point) float64 { return p.ConnPerSec })
	out.FlowsPerSec = med(func(p results.Point) float64 { return p.FlowsPerSec })
	out.SyncFullS = med(func(p results.Point) float64 { return p.SyncFullS })
	out.SyncIncrementalS = med(func(p results.Point) float64 { return p.SyncIncrementalS })
	out.SyncFullCPUS = med(func(p results.Point) float64 { return p.SyncFullCPUS })
	out.SyncIncrementalCPUS = med(func(p results.Point) float64 { return p.SyncIncrementalCPUS })
	out.SyncFullUserS = med(func(p results.Point) float64 { return p.SyncFullUserS })
	out.SyncIncrementalUserS = med(func(p results.Point) float64 { return p.SyncIncrementalUserS })
	out.SyncBatchS = med(func(p results.Point) float64 { return p.SyncBatchS })
	out.SyncBatch = int(medInt(func(p results.Point) float64 { return float64(p.SyncBatch) }))
	out.SyncBatchKind = first.SyncBatchKind
	out.Rules = int(medInt(func(p results.Point) float64 { return float64(p.Rules) }))
	out.Bytes = int(medInt(func(p results.Point) float64 { return float64(p.Bytes) }))
	out.Lines = int(medInt(func(p results.Point) float64 { return float64(p.Lines) }))
	out.KernelMemBytes = medInt(func(p results.Point) float64 { return float64(p.KernelMemBytes) })
	out.RulesEvaluated = int(medInt(func(p results.Point) float64 { return float64(p.RulesEvaluated) }))
	out.Extra = medianExtra(reps)
	return out
}

// measured aggregates a field the way every sweep metric is: the median
// of its non-zero, finite values.
var measured = Metric{ZeroIsMissing: true}

// measuredMedian is the median of the non-zero, finite values of field.
func measuredMedian(reps []results.Point, field func(results.Point) float64) float64 {
	var values []float64
	for _, r := range reps {
		values = append(values, field(r))
	}
	return measured.Aggregate(values)
}

// medianExtra is the median of each extra measurement over the repetitions
// that have it.
func medianExtra(reps []results.Point) map[string]float64 {
	byName := map[string][]float64{}
	for _, r := range reps {
		for name, v := range r.Extra {
			byName[name] = append(byName[name], v)
		}
	}
	if len(byName) == 0 {
		return nil
	}
	out := make(map[string]float64, len(byName))
	for name, values := range byName {
		out[name] = stats.Median(values)
	}
	return out
}

// latencyMetrics are the metrics whose fits get NsPerRule.
var latencyMetrics = map[string]bool{P50: true, P90: true, P99: true}

// FitPoints fits each of FitMetrics against services for every dataplane ×
// position of points (one point per service count, as Aggregate makes), as
// Aggregate documents.
func FitPoints(points []results.Point) []results.Fit {
	var fits []results.Fit
	for _, line := range splitLines(points) {
		rulesPerService := slopeOf(line, RulesEvaluated)
		for _, name := range FitMetrics {
			fit, ok := fitLine(line, name)
			if !ok {
				continue
			}
			if latencyMetrics[name] && rulesPerService > 0 {
				fit.NsPerRule = fit.SlopeNsPerService / rulesPerService
			}
			fits = append(fits, fit)
		}
	}
	return fits
}

// splitLines cuts points, sorted by dataplane and position, into runs of the
// same dataplane and position.
func splitLines(points []results.Point) [][]results.Point {
	var lines [][]results.Point
	for i, p := range points {
		if i == 0 || p.Dataplane != points[i-1].Dataplane || p.Position != points[i-1].Position {
			lines = append(lines, nil)
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], p)
	}
	return lines
}

// fitLine fits one metric of one dataplane × position line.
func fitLine(line []results.Point, name string) (results.Fit, bool) {
	m, err := Lookup(name)
	if err != nil {
		return results.Fit{}, false
	}
	f, ok := linearFit(line, m)
	if !ok {
		return results.Fit{}, false
	}
	return results.Fit{
		Dataplane:         line[0].Dataplane,
		Position:          line[0].Position,
		Metric:            name,
		SlopeNsPerService: f.Slope * m.NsPerUnit,
		SlopeCI95:         [2]float64{f.SlopeLo * m.NsPerUnit, f.SlopeHi * m.NsPerUnit},
		InterceptUs:       f.Intercept * m.NsPerUnit / 1e3,
		R2:                f.R2,
		N:                 f.N,
	}, true
}

// slopeOf returns the fitted slope of a metric in its own unit per
// service, or 0 when it cannot be fitted.
func slopeOf(line []results.Point, name string) float64 {
	m, err := Lookup(name)
	if err != nil {
		return 0
	}
	f, ok := linearFit(line, m)
	if !ok {
		return 0
	}
	return f.Slope
}

// linearFit fits the measured (positive, finite) values of m against
// services when there are enough distinct service counts.
func linearFit(line []results.Point, m Metric) (stats.Fit, bool) {
	var x, y []float64
	distinct := map[int]bool{}
	for _, p := range line {
		v := m.Point(p)
		if !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		x = append(x, float64(p.Services))
		y = append(y, v)
		distinct[p.Services] = true
	}
	if len(distinct) < MinFitServiceCounts {
		return stats.Fit{}, false
	}
	f, err := stats.LinearFit(x, y)
	return f, err == nil
}
