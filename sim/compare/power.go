package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// MinPValue is the smallest two-sided p-value the exact Mann-Whitney U
// test can give for samples of n1 and n2 values without ties: 2/C(n1+n2,
// n1), when every base value is below every new one. It is 1 when either
// sample is empty.
func MinPValue(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	lg := func(n int) float64 { v, _ := math.Lgamma(float64(n) + 1); return v }
	logChoose := lg(n1+n2) - lg(n1) - lg(n2)
	return math.Min(1, 2*math.Exp(-logChoose))
}

// MinRepetitions is the fewest values per side (equal sizes) with which the
// Mann-Whitney U test can reach p <= alpha.
func MinRepetitions(alpha float64) int {
	n := 1
	for MinPValue(n, n) > alpha && n < 1000 {
		n++
	}
	return n
}

// powerWarning says how many rows could never be significant, whatever
// the change, because their samples are too small.
func powerWarning(rows []Row, alpha float64) []string {
	var sizes, once []string
	blind := 0
	for _, r := range rows {
		if r.Detectable {
			continue
		}
		blind++
		if r.Metric.OncePerPoint && !slices.Contains(once, r.Metric.Name) {
			once = append(once, r.Metric.Name)
		}
		size := fmt.Sprintf("%d+%d", r.BaseStats.N, r.NewStats.N)
		if !slices.Contains(sizes, size) {
			sizes = append(sizes, size)
		}
	}
	if blind == 0 {
		return nil
	}
	w := fmt.Sprintf(
		"%d of %d comparisons can never be significant at alpha %v whatever the change: with n=%s samples the Mann-Whitney U test cannot reach p ≤ %v; that takes at least %d samples per side",
		blind, len(rows), alpha, strings.Join(sizes, ", "), alpha, MinRepetitions(alpha))
	if len(once) > 0 {
		w += fmt.Sprintf(" (%s: measured once per point, so one sample per point whatever the repetitions)", strings.Join(once, ", "))
	}
	return []string{w}
}
