package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// Direction says which way a metric gets worse (sim/metric's).
type Direction = metric.Direction

// Directions.
const (
	HigherIsWorse = metric.HigherIsWorse
	LowerIsWorse  = metric.LowerIsWorse
)

// Metric is a metric of sim/metric's catalog as compare applies it: to
// sweep points, or to fairness runs.
type Metric struct {
	metric.Metric
	// OfFairness: compared per fairness run (dataplane × service), else per
	// sweep point.
	OfFairness bool
	// OncePerPoint mirrors the catalog's aggregation: the runner measures
	// the metric once per point and copies it into every repetition
	// record, so only distinct values are samples.
	OncePerPoint bool
}

func compared(ofFairness bool, names ...string) []Metric {
	out := make([]Metric, len(names))
	for i, n := range names {
		m := metric.MustLookup(n)
		out[i] = Metric{Metric: m, OfFairness: ofFairness, OncePerPoint: m.Aggregation == metric.OncePerPoint}
	}
	return out
}

// SweepMetrics are compared for every sweep point.
var SweepMetrics = compared(false, metric.P50, metric.P90, metric.P99, metric.CPUPerConn, metric.ConnPerSec,
	metric.SyncFull, metric.SyncIncremental)

// FairnessMetrics are compared for every fairness run.
var FairnessMetrics = compared(true, metric.ChiSquareP, metric.Jain, metric.P50, metric.P99, metric.ConnPerSec)

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
	case !m.OfFairness && r.Type == results.TypePoint && r.Point != nil:
		v = m.Point(*r.Point)
	case m.OfFairness && r.Type == results.TypeFairness && r.Fairness != nil:
		v = m.Fairness(*r.Fairness)
	default:
		return 0, false
	}
	return v, !(m.ZeroIsMissing && v == 0)
}

// worse says whether a change of deltaPct is in the metric's worse direction.
func (m Metric) worse(deltaPct float64) bool { return m.Worse(deltaPct) }
