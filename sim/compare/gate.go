package compare

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/metric"
)

// DefaultThresholds are the gate's thresholds in percent of the base
// median: latency 10%, CPU per connection 10%, connection rate 10% (a drop),
// sync times 20%. Fairness metrics (chi2_p, jain) are not gated unless a
// threshold is given.
var DefaultThresholds = map[string]float64{
	metric.P50:             10,
	metric.P90:             10,
	metric.P99:             10,
	metric.CPUPerConn:      10,
	metric.ConnPerSec:      10,
	metric.SyncFull:        20,
	metric.SyncIncremental: 20,
}

// thresholdGroups are names that set several metrics' thresholds at once.
var thresholdGroups = map[string][]string{
	"latency": {metric.P50, metric.P90, metric.P99},
	"cpu":     {metric.CPUPerConn},
	"sync":    {metric.SyncFull, metric.SyncIncremental},
}

// Thresholds maps a metric name to its threshold in percent; a metric
// without one is not gated.
type Thresholds map[string]float64

// NewThresholds returns a copy of DefaultThresholds.
func NewThresholds() Thresholds { return maps.Clone(DefaultThresholds) }

// Set applies one "metric=PCT" setting: PCT is a percentage ("15" or
// "15%"), or "off" to stop gating the metric. metric is a metric name or a
// group: latency (p50_us, p90_us, p99_us), cpu (cpu_us_per_conn), sync
// (sync_full_s, sync_incremental_s).
func (t Thresholds) Set(setting string) error {
	name, value, ok := strings.Cut(setting, "=")
	if !ok {
		return fmt.Errorf("threshold %q: want metric=PCT, e.g. p99_us=15", setting)
	}
	names := thresholdGroups[name]
	if names == nil {
		if err := checkMetricName(name); err != nil {
			return fmt.Errorf("threshold %q: %w, or a group: latency, cpu, sync", setting, err)
		}
		names = []string{name}
	}
	if value == "off" {
		for _, n := range names {
			delete(t, n)
		}
		return nil
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
	if err != nil || pct < 0 || math.IsInf(pct, 0) || math.IsNaN(pct) {
		return fmt.Errorf("threshold %q: want a percentage ≥ 0 or off", setting)
	}
	for _, n := range names {
		t[n] = pct
	}
	return nil
}

// Failure is one significant regression beyond its threshold.
type Failure struct {
	Row       Row
	Threshold float64
	// Q is the Benjamini-Hochberg adjusted p-value; it equals Row.P
	// without correction.
	Q          float64
	Correction Correction
}

// String is the gate's line for the failure, e.g. "REGRESSION p50_us
// iptables-nft/20000/last: +31.2% (p=0.002, q=0.029, threshold 10%)"; q
// only with the Benjamini-Hochberg correction.
func (f Failure) String() string {
	q := ""
	if f.Correction == CorrectionBH {
		q = fmt.Sprintf(", q=%.3f", f.Q)
	}
	return fmt.Sprintf("REGRESSION %s %s: %+.1f%% (p=%.3f%s, threshold %s%%)",
		f.Row.Metric.Name, f.Row.Point(), f.Row.DeltaPct, f.Row.P, q, strconv.FormatFloat(f.Threshold, 'f', -1, 64))
}
