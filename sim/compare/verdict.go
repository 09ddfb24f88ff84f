package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/stats"
)

// Scope says which comparisons the gate decides on.
type Scope string

// Scopes.
const (
	// ScopePooled (the default) gates one pooled comparison per metric and
	// dataplane (Result.Pooled); the per-point rows are reported only.
	ScopePooled Scope = "pooled"
	// ScopePoints gates every point's comparison (Result.Rows).
	ScopePoints Scope = "points"
)

// ParseScope reads a scope as the --scope flag spells it ("" is ScopePooled).
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case "", ScopePooled:
		return ScopePooled, nil
	case ScopePoints:
		return ScopePoints, nil
	}
	return "", fmt.Errorf("scope %q: use pooled or points", s)
}

// GateOptions configure Gate.
type GateOptions struct {
	Thresholds Thresholds
	// Correction is the multiple-comparison correction (CorrectionBH when
	// empty); Scope the comparisons gated (ScopePooled when empty).
	Correction Correction
	Scope      Scope
}

// Outcome is the gate's verdict in one word.
type Outcome string

// Outcomes.
const (
	// Pass: every gated change is known to be within its threshold (its
	// 95% interval excludes a change beyond it).
	Pass Outcome = "PASS"
	// Regression: a change is significantly worse and beyond its threshold.
	Regression Outcome = "REGRESSION"
	// Inconclusive: no regression was shown, but some interval still
	// allows a change beyond its threshold: more repetitions are needed.
	Inconclusive Outcome = "INCONCLUSIVE"
)

// Undecided is a gated comparison whose interval still allows a change
// beyond its threshold.
type Undecided struct {
	Row       Row
	Threshold float64
	// Needed estimates the repetitions per point that would decide it (the
	// interval narrowing as 1/√n); -1 when no number will (the estimate
	// sits on the threshold, or over 1000).
	Needed int
}

// String is the gate's line for it, e.g. "INCONCLUSIVE p50_us iptables-nft
// (4 points): +3.1% [−12.0%, +19.5%] may be beyond the 10% threshold; about
// 24 repetitions per point would decide (have 6)".
func (u Undecided) String() string {
	s := fmt.Sprintf("INCONCLUSIVE %s %s: %s may be beyond the %s%% threshold",
		u.Row.Metric.Name, u.Row.Point(), FormatShift(u.Row.Shift), strconv.FormatFloat(u.Threshold, 'f', -1, 64))
	if u.Row.Metric.OncePerPoint && u.Row.repetitionsPerPoint() <= 1 {
		return s + "; measured once per point, so repetitions do not add samples: set sweep.syncEachRepetition in the scenario, or --threshold " + u.Row.Metric.Name + "=off"
	}
	if u.Needed < 0 {
		return s + fmt.Sprintf("; no practical number of repetitions would decide (have %d per point)", u.Row.repetitionsPerPoint())
	}
	return s + fmt.Sprintf("; about %d repetitions per point would decide (have %d)", u.Needed, u.Row.repetitionsPerPoint())
}

// FormatShift prints a shift as "+3.1% [−12.0%, +19.5%]", or with
// "unbounded" when the samples are too small for an interval.
func FormatShift(s stats.Shift) string {
	if !s.Bounded {
		return fmt.Sprintf("%+.1f%% [unbounded: too few samples]", s.EstPct)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", s.EstPct, s.LoPct, s.HiPct)
}

// Verdict is the gate's decision.
type Verdict struct {
	Failures  []Failure
	Undecided []Undecided
	// Gated counts the gated comparisons; Blind those of them whose
	// samples are too few to ever be significant.
	Gated, Blind int
	// Alpha is the comparison's significance level; BlindSizes lists the
	// sample sizes ("3+3") of the blind rows.
	Alpha      float64
	BlindSizes []string
	// Correction is the multiple-comparison correction applied; Scope the
	// comparisons gated.
	Correction Correction
	Scope      Scope
	// Detectable holds each gated comparison's interval half-width in
	// percent: about the smallest change its samples can tell from none.
	Detectable []float64
	// Missing are gated comparisons that could not be made: base measured
	// the metric at the point, new did not. Each fails the gate.
	Missing []Missing
	// Timeline are the timeline runs' regressions (see timelineFailures).
	Timeline []TimelineFailure
}

// Outcome is the verdict in one word.
func (v Verdict) Outcome() Outcome {
	switch {
	case len(v.Failures) > 0, len(v.Missing) > 0, len(v.Timeline) > 0:
		return Regression
	case len(v.Undecided) > 0:
		return Inconclusive
	}
	return Pass
}

// Passed says every gated change is known to be within its threshold.
func (v Verdict) Passed() bool { return v.Outcome() == Pass }

// Gate decides on every gated comparison (a metric with a threshold, in
// opts.Scope). It is a regression when the change is in the metric's worse
// direction, larger than the threshold, and significant: p ≤ alpha, and
// with CorrectionBH also q ≤ alpha, the Benjamini-Hochberg adjusted
// p-value over the gated comparisons whose samples can be significant at
// all. It passes when the 95% interval of the change lies within the
// threshold on the worse side. Otherwise it is undecided.
func Gate(res *Result, opts GateOptions) Verdict {
	if opts.Correction == "" {
		opts.Correction = CorrectionBH
	}
	if opts.Scope == "" {
		opts.Scope = ScopePooled
	}
	v := Verdict{Alpha: res.Alpha, Correction: opts.Correction, Scope: opts.Scope}
	var testable []Row
	for _, r := range gatedRows(res, opts) {
		v.Gated++
		if r.Shift.Bounded {
			v.Detectable = append(v.Detectable, r.Shift.HalfWidthPct())
		}
		if r.Detectable {
			testable = append(testable, r)
			continue
		}
		v.Blind++
		if size := fmt.Sprintf("%d+%d", r.BaseStats.N, r.NewStats.N); !slices.Contains(v.BlindSizes, size) {
			v.BlindSizes = append(v.BlindSizes, size)
		}
		v.Undecided = append(v.Undecided, undecided(r, opts.Thresholds[r.Metric.Name], res.Alpha))
	}
	for _, m := range res.Missing {
		if _, ok := opts.Thresholds[m.Metric.Name]; ok {
			v.Missing = append(v.Missing, m)
		}
	}
	v.Gated += 3 * len(res.Timelines) // stale share, convergence, probe latency
	v.Timeline = timelineFailures(res.Timelines, res.Alpha)
	q := adjusted(testable, opts.Correction)
	for i, r := range testable {
		limit := opts.Thresholds[r.Metric.Name]
		switch {
		case r.Change == Worse && q[i] <= res.Alpha && math.Abs(r.DeltaPct) > limit+thresholdSlack:
			v.Failures = append(v.Failures, Failure{Row: r, Threshold: limit, Q: q[i], Correction: opts.Correction})
		case !withinThreshold(r, limit):
			v.Undecided = append(v.Undecided, undecided(r, limit, res.Alpha))
		}
	}
	return v
}

// gatedRows are the rows of the scope whose metric has a threshold.
func gatedRows(res *Result, opts GateOptions) []Row {
	rows := res.Pooled
	if opts.Scope == ScopePoints {
		rows = res.Rows
	}
	var out []Row
	for _, r := range rows {
		if _, ok := opts.Thresholds[r.Metric.Name]; ok {
			out = append(out, r)
		}
	}
	return out
}

// worseSide returns the row's estimate and interval bound on the metric's
// worse side, as positive-is-worse percentages.
func worseSide(r Row) (est, bound float64) {
	if r.Metric.Direction == LowerIsWorse {
		return -r.Shift.EstPct, -r.Shift.LoPct
	}
	return r.Shift.EstPct, r.Shift.HiPct
}

// withinThreshold says the row's interval excludes a worse change beyond
// limit.
func withinThreshold(r Row, limit float64) bool {
	_, bound := worseSide(r)
	return r.Shift.Bounded && bound < limit
}

// thresholdSlack keeps a change planted at exactly the threshold (a copy
// with every value ×1.1 against 10%) from counting as beyond it through
// floating-point rounding.
const thresholdSlack = 1e-9

// maxRepetitions caps Undecided.Needed.
const maxRepetitions = 1000

// undecided estimates how many repetitions per point would narrow the
// interval enough to decide: on the side of the threshold the estimate is.
func undecided(r Row, limit, alpha float64) Undecided {
	u := Undecided{Row: r, Threshold: limit}
	have := max(r.repetitionsPerPoint(), 1)
	if !r.Shift.Bounded {
		u.Needed = max(MinRepetitions(alpha), have+1)
		return u
	}
	est, _ := worseSide(r)
	margin := math.Abs(limit - est)
	need := math.Ceil(float64(have) * math.Pow(r.Shift.HalfWidthPct()/margin, 2))
	if margin == 0 || need > maxRepetitions {
		u.Needed = -1
		return u
	}
	u.Needed = max(int(need), have+1)
	return u
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
	among := plural(v.Gated, "gated comparison")
	switch v.Outcome() {
	case Regression:
		if len(v.Failures) == 0 && len(v.Timeline) > 0 {
			return fmt.Sprintf("REGRESSION: %s among %s", plural(len(v.Timeline), "timeline regression"), among)
		}
		if len(v.Failures) == 0 {
			return fmt.Sprintf("REGRESSION: %s measured in base and not in new (a gated comparison that cannot be made is not a pass), among %s",
				plural(len(v.Missing), "metric-point"), among)
		}
		s := fmt.Sprintf("REGRESSION: %s in %s (%s) among %s",
			plural(len(v.Failures), "regression"), plural(len(v.FailedMetrics()), "metric"),
			strings.Join(v.FailedMetrics(), ", "), among)
		if len(v.Missing) > 0 {
			s += fmt.Sprintf("; %s measured in base and not in new", plural(len(v.Missing), "metric-point"))
		}
		return s
	case Inconclusive:
		s := fmt.Sprintf("INCONCLUSIVE: no regression shown, but %d of %s could still hide a change beyond its threshold",
			len(v.Undecided), among)
		if n := v.neededRepetitions(); n > 0 {
			s += fmt.Sprintf("; about %d repetitions per point would decide", n)
		}
		return s
	}
	s := "PASS: every change among " + among + " is known to be within its threshold (95% intervals"
	if v.Correction == CorrectionBH {
		s += "; Benjamini-Hochberg, false discovery rate " + strconv.FormatFloat(v.Alpha, 'f', -1, 64)
	}
	return s + ")"
}

// neededRepetitions is the largest finite Needed of the undecided
// comparisons, 0 when none has one.
func (v Verdict) neededRepetitions() int {
	n := 0
	for _, u := range v.Undecided {
		n = max(n, u.Needed)
	}
	return n
}

// Power says how large a change the gated comparisons could see, e.g.
// "power: a change must exceed about 6.2% (median; 3.1% to 19.4%) to be
// told from noise by these samples (95% interval half-widths)".
func (v Verdict) Power() string {
	if len(v.Detectable) == 0 {
		return "power: no gated comparison has samples enough for a 95% interval; no change could be seen"
	}
	d := slices.Sorted(slices.Values(v.Detectable))
	return fmt.Sprintf("power: a change must exceed about %.1f%% (median; %.1f%% to %.1f%%) to be told from noise by these samples (95%% interval half-widths over %s)",
		stats.Median(d), d[0], d[len(d)-1], plural(len(d), "gated comparison"))
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
		return fmt.Errorf("%w: with n=%s samples per comparison no change can reach p ≤ %v (Mann-Whitney U test); record at least %d repetitions per side",
			ErrCannotFail, strings.Join(v.BlindSizes, ", "), v.Alpha, MinRepetitions(v.Alpha))
	}
	return nil
}
