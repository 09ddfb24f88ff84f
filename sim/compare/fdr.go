package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Correction is how the gate accounts for testing many points and metrics
// at once.
type Correction string

// Corrections.
const (
	// CorrectionBH controls the false discovery rate at alpha with the
	// Benjamini-Hochberg procedure over all gated comparisons: a change
	// fails only when its adjusted p-value (q) is ≤ alpha. With dozens of
	// comparisons per run, uncorrected p ≤ 0.05 would flag noise in about
	// one run out of a few.
	CorrectionBH Correction = "bh"
	// CorrectionNone gates each comparison on its own p-value.
	CorrectionNone Correction = "none"
)

// ParseCorrection accepts "bh" and "none".
func ParseCorrection(s string) (Correction, error) {
	switch c := Correction(s); c {
	case CorrectionBH, CorrectionNone:
		return c, nil
	}
	return "", fmt.Errorf("correction %q: want bh (Benjamini-Hochberg) or none", s)
}

// BenjaminiHochberg returns the Benjamini-Hochberg adjusted p-values (q
// values) of p, in p's order: q(i) = min over j ≥ i of m·p(j)/j, with p
// sorted ascending, capped at 1. Rejecting every hypothesis with q ≤ alpha
// keeps the expected share of false rejections at most alpha (for
// independent or positively dependent tests). The step-up cumulative
// minimum keeps q monotone in p and at least p; an input outside [0, 1]
// (NaN is treated as 1) is clamped first, so every q lies in [0, 1].
func BenjaminiHochberg(p []float64) []float64 {
	p = clampUnit(p)
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	q := make([]float64, m)
	running := 1.0
	for rank := m; rank >= 1; rank-- {
		i := order[rank-1]
		running = min(running, p[i]*float64(m)/float64(rank))
		q[i] = running
	}
	return q
}

// clampUnit returns a copy of p with every value clamped to [0, 1] and NaN
// replaced by 1 (no evidence).
func clampUnit(p []float64) []float64 {
	out := make([]float64, len(p))
	for i, v := range p {
		switch {
		case math.IsNaN(v) || v > 1:
			out[i] = 1
		case v < 0:
			out[i] = 0
		default:
			out[i] = v
		}
	}
	return out
}
