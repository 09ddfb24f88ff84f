package plot

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/results"
)

// Metric is one numeric field of a sweep point that can be plotted or
// fitted against the number of services.
type Metric struct {
	// Name is the field's JSON name in results.Point, e.g. "p50_us".
	Name string
	// Label is the axis label, with the unit.
	Label string
	// NsPerUnit converts the metric's unit to nanoseconds (1e3 for µs, 1e9
	// for seconds); it is 1 for counts, which have no time unit. A Fit's
	// SlopeNsPerService is the slope in the metric's unit × NsPerUnit.
	NsPerUnit float64
	// Value reads the metric from a point.
	Value func(results.Point) float64
}

// metrics lists every metric by JSON name.
var metrics = []Metric{
	{"p50_us", "connect latency p50 (µs)", 1e3, func(p results.Point) float64 { return p.P50us }},
	{"p90_us", "connect latency p90 (µs)", 1e3, func(p results.Point) float64 { return p.P90us }},
	{"p99_us", "connect latency p99 (µs)", 1e3, func(p results.Point) float64 { return p.P99us }},
	{"p999_us", "connect latency p99.9 (µs)", 1e3, func(p results.Point) float64 { return p.P999us }},
	{"mean_us", "connect latency mean (µs)", 1e3, func(p results.Point) float64 { return p.MeanUs }},
	{"cpu_us_per_conn", "CPU time per new connection (µs)", 1e3, func(p results.Point) float64 { return p.CPUusPerConn }},
	{"conn_per_s", "new connections per second", 1, func(p results.Point) float64 { return p.ConnPerSec }},
	{"flows_per_s", "flows per second", 1, func(p results.Point) float64 { return p.FlowsPerSec }},
	{"sync_full_s", "full sync (s)", 1e9, func(p results.Point) float64 { return p.SyncFullS }},
	{"sync_incremental_s", "incremental sync (s)", 1e9, func(p results.Point) float64 { return p.SyncIncrementalS }},
	{"rules", "rules", 1, func(p results.Point) float64 { return float64(p.Rules) }},
	{"bytes", "rule-set size (bytes)", 1, func(p results.Point) float64 { return float64(p.Bytes) }},
	{"lines", "rule-set size (lines)", 1, func(p results.Point) float64 { return float64(p.Lines) }},
	{"kernel_mem_bytes", "kernel memory (bytes)", 1, func(p results.Point) float64 { return float64(p.KernelMemBytes) }},
	{"rules_evaluated", "rules evaluated per first packet", 1, func(p results.Point) float64 { return float64(p.RulesEvaluated) }},
}

// LookupMetric returns the metric with the given JSON name.
func LookupMetric(name string) (Metric, error) {
	i := slices.IndexFunc(metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		names := make([]string, len(metrics))
		for j, m := range metrics {
			names[j] = m.Name
		}
		return Metric{}, fmt.Errorf("unknown sweep metric %q (use one of %s)", name, strings.Join(names, ", "))
	}
	return metrics[i], nil
}

// FitValue returns the fitted value of fit, which was computed for metric m,
// at n services, in the metric's unit.
func FitValue(m Metric, fit results.Fit, n float64) float64 {
	return (fit.InterceptUs*1e3 + fit.SlopeNsPerService*n) / m.NsPerUnit
}

// FormatSlope formats a fit's slope and its 95% interval, e.g.
// "21.3 ns/service [19.8, 22.9]".
func FormatSlope(fit results.Fit) string {
	return fmt.Sprintf("%s ns/service [%s, %s]",
		FormatNumber(fit.SlopeNsPerService), FormatNumber(fit.SlopeCI95[0]), FormatNumber(fit.SlopeCI95[1]))
}

// FormatNumber prints a measured value with a precision that suits its
// size: no decimals from 100, one from 10, two below.
func FormatNumber(v float64) string {
	var s string
	switch a := math.Abs(v); {
	case a >= 100:
		s = fmt.Sprintf("%.0f", v)
	case a >= 10:
		s = fmt.Sprintf("%.1f", v)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	if strings.Trim(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-") // no "-0.00"
	}
	return s
}
