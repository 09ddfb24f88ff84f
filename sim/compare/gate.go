package compare

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
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

// Verdict is the gate's decision.
type Verdict struct {
	Failures []Failure
	// Gated counts the rows whose metric has a threshold; Blind those of
	// them whose samples are too few to ever be significant.
	Gated, Blind int
	// Alpha is the comparison's significance level; BlindSizes lists the
	// sample sizes ("3+3") of the blind rows.
	Alpha      float64
	BlindSizes []string
	// Correction is the multiple-comparison correction applied.
	Correction Correction
	// Missing are gated comparisons that could not be made: base measured
	// the metric at the point, new did not. Each fails the gate.
	Missing []Missing
}

// Passed says no metric regressed and every gated comparison of base was
// made.
func (v Verdict) Passed() bool { return len(v.Failures) == 0 && len(v.Missing) == 0 }

// Gate checks every row whose metric has a threshold: it fails when the
// change is in the metric's worse direction, larger than the threshold, and
// significant: p ≤ alpha, and with CorrectionBH also q ≤ alpha, the
// Benjamini-Hochberg adjusted p-value over the gated rows whose samples can
// be significant at all. An empty correction is CorrectionBH.
func Gate(res *Result, thresholds Thresholds, correction Correction) Verdict {
	if correction == "" {
		correction = CorrectionBH
	}
	v := Verdict{Alpha: res.Alpha, Correction: correction}
	var gated []Row
	for _, r := range res.Rows {
		if _, ok := thresholds[r.Metric.Name]; !ok {
			continue
		}
		v.Gated++
		if r.Detectable {
			gated = append(gated, r)
			continue
		}
		v.Blind++
		if size := fmt.Sprintf("%d+%d", r.BaseStats.N, r.NewStats.N); !slices.Contains(v.BlindSizes, size) {
			v.BlindSizes = append(v.BlindSizes, size)
		}
	}
	for _, m := range res.Missing {
		if _, ok := thresholds[m.Metric.Name]; ok {
			v.Missing = append(v.Missing, m)
		}
	}
	q := adjusted(gated, correction)
	for i, r := range gated {
		limit := thresholds[r.Metric.Name]
		if r.Change == Worse && q[i] <= res.Alpha && math.Abs(r.DeltaPct) > limit {
			v.Failures = append(v.Failures, Failure{Row: r, Threshold: limit, Q: q[i], Correction: correction})
		}
	}
	return v
}

// adjusted returns the rows' p-values after the correction.
func adjusted(rows []Row, correction Correction) []float64 {
	p := make([]float64, len(rows))
	for i, r := range rows {
		p[i] = r.P
	}
	if correction == CorrectionBH {
		return BenjaminiHochberg(p)
	}
	return p
}

// FailedMetrics lists the metrics that regressed, in row order.
func (v Verdict) FailedMetrics() []string {
	var names []string
	for _, f := range v.Failures {
		if !slices.Contains(names, f.Row.Metric.Name) {
			names = append(names, f.Row.Metric.Name)
		}
	}
	return names
}

// String is the final verdict line.
func (v Verdict) String() string {
	if len(v.Missing) > 0 && len(v.Failures) == 0 {
		return fmt.Sprintf("FAIL: %s measured in base and not in new (a gated comparison that cannot be made is not a pass), among %s",
			plural(len(v.Missing), "metric-point"), plural(v.Gated, "gated comparison"))
	}
	if !v.Passed() {
		s := fmt.Sprintf("FAIL: %s in %s (%s) among %s",
			plural(len(v.Failures), "regression"), plural(len(v.FailedMetrics()), "metric"),
			strings.Join(v.FailedMetrics(), ", "), plural(v.Gated, "gated comparison"))
		if len(v.Missing) > 0 {
			s += fmt.Sprintf("; %s measured in base and not in new", plural(len(v.Missing), "metric-point"))
		}
		return s
	}
	var notes []string
	if v.Correction == CorrectionBH {
		notes = append(notes, "Benjamini-Hochberg, false discovery rate "+strconv.FormatFloat(v.Alpha, 'f', -1, 64))
	}
	if v.Blind > 0 {
		notes = append(notes, fmt.Sprintf("%d of them have too few samples to ever be significant", v.Blind))
	}
	s := "PASS: no significant regression beyond its threshold among " + plural(v.Gated, "gated comparison")
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// ErrCannotFail says the gate could not fail whatever the runs hold.
var ErrCannotFail = errors.New("the gate cannot detect a regression")

// CanFail returns an error wrapping ErrCannotFail when no gated comparison
// could ever fail: none was gated (no compared metric has a threshold), or
// every gated comparison has too few samples to reach p ≤ alpha.
func (v Verdict) CanFail() error {
	switch {
	case v.Gated == 0:
		return fmt.Errorf("%w: no compared metric has a threshold", ErrCannotFail)
	case v.Blind == v.Gated:
		return fmt.Errorf("%w: with n=%s samples per point no change can reach p ≤ %v (Mann-Whitney U test); record at least %d repetitions per side",
			ErrCannotFail, strings.Join(v.BlindSizes, ", "), v.Alpha, MinRepetitions(v.Alpha))
	}
	return nil
}
