package stats

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Summary is the median of repeated measurements with a distribution-free
// confidence interval, as benchstat prints it ("1.72µ ± 1%").
type Summary struct {
	// Center is the sample median.
	Center float64 `json:"center"`
	// Lo and Hi bound the median at level Confidence, from order
	// statistics. When there are too few samples the interval is infinite:
	// Unbounded is then true, Lo and Hi are 0 and Warnings says how many
	// samples are needed.
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Unbounded bool    `json:"unbounded,omitempty"`
	// Confidence is the actual level of [Lo, Hi]. Order statistics only
	// give certain levels, so it is at least the level asked for. When
	// Unbounded it is benchmath's 1 (the infinite interval), or 0 with no
	// samples.
	Confidence float64 `json:"confidence"`
	// N is the number of values summarised (non-finite values excluded).
	N        int      `json:"n"`
	Warnings []string `json:"warnings,omitempty"`
}

// Comparison says whether new measurements differ from base ones, as
// benchstat's "-17.20% (p=0.000 n=10)" or "~ (p=0.310 n=10)".
type Comparison struct {
	// P is the two-sided Mann-Whitney U test p-value of the hypothesis
	// that both samples come from the same distribution. It is 1 when the
	// test cannot run (an empty sample, or every value equal).
	P float64 `json:"p"`
	// Alpha is the significance level used.
	Alpha float64 `json:"alpha"`
	// DeltaPct is (median(new)/median(base) - 1)·100; 0 when the base
	// median is 0 (with a warning).
	DeltaPct float64 `json:"delta_pct"`
	// Significant is P <= Alpha: benchstat prints a delta rather than "~".
	Significant bool `json:"significant"`
	// BaseCenter and NewCenter are the two medians; N1 and N2 the sizes.
	BaseCenter float64  `json:"base_center"`
	NewCenter  float64  `json:"new_center"`
	N1         int      `json:"n1"`
	N2         int      `json:"n2"`
	Warnings   []string `json:"warnings,omitempty"`
}

// DefaultAlpha is benchstat's significance level.
const DefaultAlpha = 0.05

// Summarize returns the median of values with a confidence interval at the
// given level (e.g. 0.95), using benchmath.AssumeNothing. Non-finite values
// (NaN, ±Inf) are dropped with a warning. values is not modified.
func Summarize(values []float64, confidence float64) Summary {
	clean, warnings := dropNonFinite(values)
	if !(confidence > 0 && confidence < 1) {
		warnings = append(warnings, fmt.Sprintf("confidence %v is not in (0, 1); using %v", confidence, DefaultConfidence))
		confidence = DefaultConfidence
	}
	if len(clean) == 0 {
		return Summary{Unbounded: true, Warnings: append(warnings, "no samples")}
	}
	sample := benchmath.NewSample(clean, &benchmath.DefaultThresholds)
	s := benchmath.AssumeNothing.Summary(sample, confidence)
	out := Summary{
		Center:     s.Center,
		Lo:         s.Lo,
		Hi:         s.Hi,
		Confidence: s.Confidence,
		N:          len(clean),
		Warnings:   append(warnings, errorStrings(s.Warnings)...),
	}
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		out.Lo, out.Hi, out.Unbounded = 0, 0, true
	}
	return out
}

// Compare tests whether new differs from base with the Mann-Whitney U test
// at significance level alpha (e.g. 0.05), using benchmath.AssumeNothing,
// and reports the change of the median. Like benchstat it warns rather than
// fails when the samples are too small to ever reach significance (fewer
// than 4 each at alpha 0.05). Non-finite values are dropped with a warning.
func Compare(base, new []float64, alpha float64) Comparison {
	baseClean, warnings := dropNonFinite(base)
	newClean, newWarnings := dropNonFinite(new)
	warnings = append(warnings, newWarnings...)
	if !(alpha > 0 && alpha < 1) {
		warnings = append(warnings, fmt.Sprintf("alpha %v is not in (0, 1); using %v", alpha, DefaultAlpha))
		alpha = DefaultAlpha
	}
	thresholds := benchmath.Thresholds{CompareAlpha: alpha}
	s1 := benchmath.NewSample(baseClean, &thresholds)
	s2 := benchmath.NewSample(newClean, &thresholds)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	c.P = twoSided(c.P)
	out := Comparison{
		P:           c.P,
		Alpha:       alpha,
		Significant: c.P <= alpha,
		BaseCenter:  median(s1),
		NewCenter:   median(s2),
		N1:          len(baseClean),
		N2:          len(newClean),
		Warnings:    append(warnings, errorStrings(c.Warnings)...),
	}
	out.DeltaPct, out.Warnings = deltaPct(out.BaseCenter, out.NewCenter, out.Warnings)
	return out
}

// twoSided caps the Mann-Whitney U test's two-sided p-value at 1. With the
// exact U distribution (small samples, or ties below 25 values per side)
// go-moremath doubles the smaller tail, CDF(min(U1, U2)), which counts the
// probability mass at that U twice; when U sits next to the centre, as
// ties and tiny samples make likely, the doubled tail exceeds 1 (p = 1.12
// for a sample against its first two thirds). The two-sided p-value is
// min(1, 2·tail), as R's wilcox.test computes it. A NaN becomes 1.
func twoSided(p float64) float64 {
	if math.IsNaN(p) {
		return 1
	}
	return max(0, min(1, p))
}

// median returns the median of a sorted benchmath sample, 0 when empty.
func median(s *benchmath.Sample) float64 {
	if len(s.Values) == 0 {
		return 0
	}
	return benchmath.AssumeNothing.Summary(s, DefaultConfidence).Center
}

func deltaPct(base, new float64, warnings []string) (float64, []string) {
	switch {
	case base == new:
		return 0, warnings
	case base == 0:
		return 0, append(warnings, "base median is 0: no percentage change")
	}
	return (new/base - 1) * 100, warnings
}

// dropNonFinite copies values without NaNs and infinities: benchmath sorts
// its input in place, a NaN would break the ordering, and an infinite median
// could not be encoded as JSON.
func dropNonFinite(values []float64) ([]float64, []string) {
	clean := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			clean = append(clean, v)
		}
	}
	if dropped := len(values) - len(clean); dropped > 0 {
		return clean, []string{fmt.Sprintf("dropped %d non-finite values", dropped)}
	}
	return clean, nil
}

func errorStrings(errs []error) []string {
	var out []string
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}

// MedianInterval is the median of values and its distribution-free
// confidence interval (order statistics, x/perf's benchmath): the interval
// in which the median of what was sampled lies at that confidence
// (or the nearest above it that the count allows: 96.1% for 9 values at
// 0.95). ok is false when there are too few values for the confidence
// (fewer than 6 at 0.95); non-finite values are dropped.
func MedianInterval(values []float64, confidence float64) (center, lo, hi float64, ok bool) {
	clean, _ := dropNonFinite(values)
	if len(clean) == 0 {
		return math.NaN(), 0, 0, false
	}
	thresholds := benchmath.DefaultThresholds
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(clean, &thresholds), confidence)
	if len(s.Warnings) > 0 || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return s.Center, 0, 0, false
	}
	return s.Center, s.Lo, s.Hi, true
}

// Median is the median of values (the mean of the middle two for an even
// count), NaN when there are none. values is not modified.
func Median(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	v := slices.Clone(values)
	slices.Sort(v)
	mid := len(v) / 2
	if len(v)%2 == 1 {
		return v[mid]
	}
	return (v[mid-1] + v[mid]) / 2
}
