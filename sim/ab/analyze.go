package ab

import (
	"errors"
	"math"

	"github.com/svclab/svclab/sim/compare"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// Options configure Analyze.
type Options struct {
	// Primary are the gated comparisons (DefaultPrimary when empty).
	Primary []Primary
	// Alpha is the significance level and false discovery rate (0.05 when
	// zero); Confidence the intervals' level (0.95 when zero).
	Alpha, Confidence float64
}

// Row is one metric at one point: the pairs' ratio new/base with its
// interval and, for a primary comparison, its verdict.
type Row struct {
	Metric string `json:"metric"`
	Point
	Pairs int `json:"pairs"`
	// Ratio, RatioLo and RatioHi are new/base and its interval.
	Ratio   float64 `json:"ratio"`
	RatioLo float64 `json:"ratio_lo"`
	RatioHi float64 `json:"ratio_hi"`
	// Bounded is false when the pairs are too few for an interval.
	Bounded bool    `json:"bounded"`
	P       float64 `json:"p"`
	// Primary rows are gated: Q is their Benjamini-Hochberg adjusted
	// p-value over the primary rows, Threshold their threshold in percent,
	// Outcome their verdict and Needed, for an inconclusive one, the pairs
	// that would decide (-1: no practical number).
	Primary   bool            `json:"primary"`
	Q         float64         `json:"q,omitempty"`
	Threshold float64         `json:"threshold_pct,omitempty"`
	Outcome   compare.Outcome `json:"outcome,omitempty"`
	Needed    int             `json:"needed,omitempty"`
	// SpreadPct is how much the pairs' ratios spread: the standard
	// deviation of their log-ratios that the interval implies
	// (stats.PairedShift.Spread), as a percentage; 0 unknown.
	// PairsForTwice, for a primary row, is about how many pairs would call
	// a real change of twice the threshold a REGRESSION 9 times in 10 at
	// that spread (stats.PairsToDetect at alpha over the primary count);
	// -1 when the spread is unknown.
	SpreadPct     float64 `json:"pair_spread_pct"`
	PairsForTwice int     `json:"pairs_for_twice_threshold,omitempty"`

	shift stats.PairedShift
	dir   metric.Direction
}

// Result is an A/B run's analysis.
type Result struct {
	Rows []Row `json:"rows"`
	// Outcome is the verdict over the primary rows.
	Outcome compare.Outcome `json:"outcome"`
	// Detectable is the largest primary interval half-width in percent:
	// about the smallest change every primary comparison could tell from
	// none; +Inf (null in JSON) when one is unbounded.
	Detectable float64 `json:"detectable_pct"`
	// Needed is the most pairs an inconclusive primary row needs (0 when
	// none is; -1 when one needs more than maxPairs).
	Needed int     `json:"needed,omitempty"`
	Alpha  float64 `json:"alpha"`
}

// ErrNoPrimary: no primary comparison could be made (the sides share no
// point with the primary metric measured).
var ErrNoPrimary = errors.New("no primary comparison: the two sides share no point where a primary metric was measured")

// Analyze pairs the point records of the two sides by point and repetition
// and compares every sweep metric at every common point; the primary rows
// decide the verdict.
func Analyze(baseRecords, newRecords []results.Record, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	base, new := sideOf(baseRecords), sideOf(newRecords)
	largest := largestServices(base)
	res := &Result{Alpha: opts.Alpha}
	for _, k := range commonPoints(base, new) {
		for _, m := range Metrics() {
			b, n := pairs(base, new, k, m)
			if len(b) == 0 {
				continue
			}
			row := newRow(m, k, b, n, opts.Confidence)
			if rule, ok := gatedAt(opts.Primary, m.Name, k, largest[k.Dataplane]); ok {
				row.Primary, row.Threshold = true, rule.Threshold
			}
			res.Rows = append(res.Rows, row)
		}
	}
	if err := res.decide(opts.Alpha); err != nil {
		return nil, err
	}
	return res, nil
}

func (o Options) withDefaults() Options {
	if len(o.Primary) == 0 {
		o.Primary = DefaultPrimary()
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	return o
}

func largestServices(s side) map[string]int {
	out := map[string]int{}
	for k := range s {
		out[k.Dataplane] = max(out[k.Dataplane], k.Services)
	}
	return out
}

func newRow(m metric.Metric, k Point, b, n []float64, confidence float64) Row {
	s := stats.PairedInterval(b, n, confidence)
	r := Row{Metric: m.Name, Point: k, Pairs: s.N1, Ratio: 1 + s.EstPct/100, Bounded: s.Bounded, P: s.P, shift: s, dir: m.Direction}
	if spread := s.Spread(); !math.IsNaN(spread) {
		r.SpreadPct = math.Expm1(spread) * 100
	}
	if s.Bounded {
		r.RatioLo, r.RatioHi = 1+s.LoPct/100, 1+s.HiPct/100
	}
	return r
}

// EstPct, LoPct and HiPct are the change and its interval in percent.
func (r Row) EstPct() float64 { return r.shift.EstPct }

// Shift is the row's paired shift.
func (r Row) Shift() stats.PairedShift { return r.shift }

// worse returns the estimate and the interval's bound on the metric's
// worse side, as positive-is-worse percentages.
func (r Row) worse() (est, bound float64) {
	if r.dir == metric.LowerIsWorse {
		return -r.shift.EstPct, -r.shift.LoPct
	}
	return r.shift.EstPct, r.shift.HiPct
}

// maxPairs caps Needed.
const maxPairs = 1000

// decide sets the primary rows' q-values and outcomes and the verdict.
func (res *Result) decide(alpha float64) error {
	var idx []int
	var p []float64
	for i, r := range res.Rows {
		if r.Primary {
			idx, p = append(idx, i), append(p, r.P)
		}
	}
	if len(idx) == 0 {
		return ErrNoPrimary
	}
	q := compare.BenjaminiHochberg(p)
	res.Outcome = compare.Pass
	for j, i := range idx {
		r := &res.Rows[i]
		r.Q = q[j]
		r.Outcome, r.Needed = judge(*r, alpha)
		r.PairsForTwice = stats.PairsToDetect(r.shift.Spread(), 2*r.Threshold, r.Threshold, alpha/float64(len(idx)), 0.9)
		res.Detectable = math.Max(res.Detectable, r.shift.HalfWidthPct())
		switch {
		case r.Outcome == compare.Regression:
			res.Outcome = compare.Regression
		case r.Outcome == compare.Inconclusive && res.Outcome == compare.Pass:
			res.Outcome = compare.Inconclusive
		}
		if r.Needed < 0 || res.Needed < 0 {
			res.Needed = min(r.Needed, res.Needed)
		} else {
			res.Needed = max(res.Needed, r.Needed)
		}
	}
	return nil
}

// judge is one primary row's verdict: a regression when the change is
// worse, beyond the threshold and significant (q ≤ alpha); a pass when
// its interval excludes a worse change beyond the threshold; otherwise
// inconclusive, with the pairs that would narrow the interval enough (it
// narrows as 1/√n).
func judge(r Row, alpha float64) (compare.Outcome, int) {
	est, bound := r.worse()
	switch {
	case est > r.Threshold && r.Q <= alpha:
		return compare.Regression, 0
	case r.Bounded && bound < r.Threshold:
		return compare.Pass, 0
	}
	if !r.Bounded {
		return compare.Inconclusive, max(minPairs, r.Pairs+1)
	}
	margin := math.Abs(r.Threshold - est)
	need := math.Ceil(float64(r.Pairs) * math.Pow(r.shift.HalfWidthPct()/margin, 2))
	if margin == 0 || need > maxPairs {
		return compare.Inconclusive, -1
	}
	return compare.Inconclusive, max(int(need), r.Pairs+1)
}

// minPairs is the fewest pairs with a 95% signed-rank interval.
const minPairs = 6

// Metrics are the metrics compared at every point: every sweep metric of
// the catalog (the ones a gate: rule may name), p10 latency (read from the
// histogram; what a busy machine disturbs least) and rule-set sizes (which
// do not drift at all) among them.
func Metrics() []metric.Metric { return metric.Sweep() }
