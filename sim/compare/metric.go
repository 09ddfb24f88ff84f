package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/results"
)

// Direction says which way a metric gets worse.
type Direction int

// Directions.
const (
	// HigherIsWorse: latency, CPU time, sync time.
	HigherIsWorse Direction = iota + 1
	// LowerIsWorse: connection rate, Jain's index, the chi-square p-value.
	LowerIsWorse
)

// String is "higher is worse" or "lower is worse".
func (d Direction) String() string {
	if d == LowerIsWorse {
		return "lower is worse"
	}
	return "higher is worse"
}

// Metric is one compared measurement.
type Metric struct {
	// Name is the field's JSON name in the record, e.g. "p50_us".
	Name string
	// Unit is the value's unit ("µs", "s", "conn/s"), "" for a ratio.
	Unit string
	// BenchUnit is the unit in the Go benchmark format, e.g. "p50-µs".
	BenchUnit string
	// Direction says which way the metric gets worse.
	Direction Direction
	// ZeroIsMissing: a zero means "not measured" and is not a sample.
	ZeroIsMissing bool
	// OncePerPoint: the runner measures the metric once per point (per
	// lab) and copies it into every repetition record, so only distinct
	// values are samples; copies would fake significance.
	OncePerPoint bool
	point        func(results.Point) float64
	fairness     func(results.FairnessRun) float64
}

// SweepMetrics are compared for every sweep point.
var SweepMetrics = []Metric{
	{Name: "p50_us", Unit: "µs", BenchUnit: "p50-µs", Direction: HigherIsWorse, ZeroIsMissing: true, point: func(p results.Point) float64 { return p.P50us }},
	{Name: "p90_us", Unit: "µs", BenchUnit: "p90-µs", Direction: HigherIsWorse, ZeroIsMissing: true, point: func(p results.Point) float64 { return p.P90us }},
	{Name: "p99_us", Unit: "µs", BenchUnit: "p99-µs", Direction: HigherIsWorse, ZeroIsMissing: true, point: func(p results.Point) float64 { return p.P99us }},
	{Name: "cpu_us_per_conn", Unit: "µs", BenchUnit: "cpu-µs/conn", Direction: HigherIsWorse, ZeroIsMissing: true, point: func(p results.Point) float64 { return p.CPUusPerConn }},
	{Name: "conn_per_s", Unit: "conn/s", BenchUnit: "conn/s", Direction: LowerIsWorse, ZeroIsMissing: true, point: func(p results.Point) float64 { return p.ConnPerSec }},
	{Name: "sync_full_s", Unit: "s", BenchUnit: "sync-full-s", Direction: HigherIsWorse, ZeroIsMissing: true, OncePerPoint: true, point: func(p results.Point) float64 { return p.SyncFullS }},
	{Name: "sync_incremental_s", Unit: "s", BenchUnit: "sync-incremental-s", Direction: HigherIsWorse, ZeroIsMissing: true, OncePerPoint: true, point: func(p results.Point) float64 { return p.SyncIncrementalS }},
}

// FairnessMetrics are compared for every fairness run (dataplane ×
// service). A chi-square p-value of 0 is a measurement, not a gap.
var FairnessMetrics = []Metric{
	{Name: "chi2_p", BenchUnit: "chi2-p", Direction: LowerIsWorse, fairness: func(f results.FairnessRun) float64 { return f.ChiSquareP }},
	{Name: "jain", BenchUnit: "jain", Direction: LowerIsWorse, ZeroIsMissing: true, fairness: func(f results.FairnessRun) float64 { return f.Jain }},
	{Name: "p50_us", Unit: "µs", BenchUnit: "p50-µs", Direction: HigherIsWorse, ZeroIsMissing: true, fairness: func(f results.FairnessRun) float64 { return f.P50us }},
	{Name: "p99_us", Unit: "µs", BenchUnit: "p99-µs", Direction: HigherIsWorse, ZeroIsMissing: true, fairness: func(f results.FairnessRun) float64 { return f.P99us }},
	{Name: "conn_per_s", Unit: "conn/s", BenchUnit: "conn/s", Direction: LowerIsWorse, ZeroIsMissing: true, fairness: func(f results.FairnessRun) float64 { return f.ConnPerSec }},
}

// MetricNames lists every compared metric name once, sweep metrics first.
func MetricNames() []string {
	var names []string
	for _, m := range slices.Concat(SweepMetrics, FairnessMetrics) {
		if !slices.Contains(names, m.Name) {
			names = append(names, m.Name)
		}
	}
	return names
}

// checkMetricName accepts the names MetricNames lists.
func checkMetricName(name string) error {
	if slices.Contains(MetricNames(), name) {
		return nil
	}
	return fmt.Errorf("unknown metric %q (use one of %s)", name, strings.Join(MetricNames(), ", "))
}

// value reads the metric from a record; ok is false when the record does
// not carry it or it was not measured.
func (m Metric) value(r results.Record) (v float64, ok bool) {
	switch {
	case r.Type == results.TypePoint && r.Point != nil && m.point != nil:
		v = m.point(*r.Point)
	case r.Type == results.TypeFairness && r.Fairness != nil && m.fairness != nil:
		v = m.fairness(*r.Fairness)
	default:
		return 0, false
	}
	return v, !(m.ZeroIsMissing && v == 0)
}

// worse says whether a change of deltaPct is in the metric's worse direction.
func (m Metric) worse(deltaPct float64) bool {
	if m.Direction == LowerIsWorse {
		return deltaPct < 0
	}
	return deltaPct > 0
}
