package metric

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// Direction says which way a metric gets worse.
type Direction int

// Directions.
const (
	// HigherIsWorse: latency, CPU time, sync time, rule-set size.
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

// Aggregation says how a metric's repetitions become one value per point.
type Aggregation int

// Aggregations.
const (
	// Median of the repetitions' measured values.
	Median Aggregation = iota
	// OncePerPoint: the runner measures the metric once per point (per lab)
	// and copies it into every repetition record; only distinct values are
	// samples (copies would fake significance) and the aggregate is their
	// median.
	OncePerPoint
)

// Metric is one measurement.
type Metric struct {
	// Name is the field's JSON name in the records, e.g. "p50_us".
	Name string
	// Unit is the value's unit ("µs", "s", "conn/s", "bytes"), "" for a
	// count or a ratio.
	Unit string
	// Label is a plot axis label, with the unit.
	Label string
	// BenchUnit is the unit in the Go benchmark format, e.g. "p50-µs".
	BenchUnit string
	// NsPerUnit converts the unit to nanoseconds (1e3 for µs, 1e9 for
	// seconds); 1 for metrics without a time unit. A fit's slope is in the
	// metric's unit × NsPerUnit per service.
	NsPerUnit float64
	// Direction says which way the metric gets worse.
	Direction Direction
	// ZeroIsMissing: a zero means "not measured" and is not a sample.
	ZeroIsMissing bool
	// Aggregation is how repetitions are combined.
	Aggregation Aggregation
	// Point reads the metric from a sweep point; nil when sweeps lack it.
	Point func(results.Point) float64
	// Fairness reads it from a fairness run; nil when fairness runs lack it.
	Fairness func(results.FairnessRun) float64
}

// Names of the metrics other packages refer to.
const (
	P10             = "p10_us"
	P50             = "p50_us"
	P90             = "p90_us"
	P99             = "p99_us"
	P999            = "p999_us"
	Mean            = "mean_us"
	CPUPerConn      = "cpu_us_per_conn"
	ConnPerSec      = "conn_per_s"
	FlowsPerSec     = "flows_per_s"
	SyncFull        = "sync_full_s"
	SyncIncremental = "sync_incremental_s"
	// SyncBatch is the partial sync that carried sweep.incrementalBatch
	// changes at once.
	SyncBatch   = "sync_batch_s"
	SyncFullCPU = "sync_full_cpu_s"
	// SyncIncrementalCPU is the incremental sync's CPU time in the tool
	// that applied it.
	SyncIncrementalCPU = "sync_incremental_cpu_s"
	// SyncFullUser and SyncIncrementalUser are those CPU times' user
	// part: the tool's own work, the rest being the kernel's.
	SyncFullUser        = "sync_full_user_s"
	SyncIncrementalUser = "sync_incremental_user_s"
	Rules               = "rules"
	Bytes               = "bytes"
	Lines               = "lines"
	KernelMem           = "kernel_mem_bytes"
	RulesEvaluated      = "rules_evaluated"
	ChiSquareP          = "chi2_p"
	Jain                = "jain"
	MaxMinRatio         = "max_min_ratio"
)

// Worse says whether a change of deltaPct is in the metric's worse
// direction.
func (m Metric) Worse(deltaPct float64) bool {
	if m.Direction == LowerIsWorse {
		return deltaPct < 0
	}
	return deltaPct > 0
}

// Measured says whether v is a sample of m: finite, and not a zero that
// means "not measured".
func (m Metric) Measured(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && !(m.ZeroIsMissing && v == 0)
}

// Aggregate combines the values of m's repetitions at one point: the median
// of the measured values, 0 when none is measured. (OncePerPoint copies
// are identical, so they do not move the median; they matter only where
// repetitions are samples, see Samples.)
func (m Metric) Aggregate(values []float64) float64 {
	var vs []float64
	for _, v := range values {
		if m.Measured(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0
	}
	return stats.Median(vs)
}

// Samples returns the values of m that are samples for a statistical test:
// the measured ones, and for OncePerPoint only the distinct ones.
func (m Metric) Samples(values []float64) []float64 {
	var vs []float64
	for _, v := range values {
		if m.Measured(v) && !(m.Aggregation == OncePerPoint && slices.Contains(vs, v)) {
			vs = append(vs, v)
		}
	}
	return vs
}

// Lookup returns the metric called name.
func Lookup(name string) (Metric, error) {
	if i := slices.IndexFunc(catalog, func(m Metric) bool { return m.Name == name }); i >= 0 {
		return catalog[i], nil
	}
	return Metric{}, fmt.Errorf("unknown metric %q (use one of %s)", name, strings.Join(Names(), ", "))
}

// MustLookup is Lookup for names known to be in the catalog (the constants
// above); it panics otherwise.
func MustLookup(name string) Metric {
	m, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return m
}

// All returns every metric, in catalog order.
func All() []Metric { return slices.Clone(catalog) }

// Names returns every metric's name, in catalog order.
func Names() []string {
	out := make([]string, len(catalog))
	for i, m := range catalog {
		out[i] = m.Name
	}
	return out
}

// Sweep returns the metrics of sweep points, in catalog order.
func Sweep() []Metric {
	return slices.DeleteFunc(All(), func(m Metric) bool { return m.Point == nil })
}
