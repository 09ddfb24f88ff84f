package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Every p-value sim/stats computes lies in [0, 1], whatever the input:
// ties, tiny samples, lopsided sizes (issue 10 point 10: compare printed
// p = 1.086 for a run against its own first two thirds).

func inUnit(p float64) bool { return p >= 0 && p <= 1 }

// tiedSample draws n values from a small set of levels, so that ties are
// the rule, as with latencies in whole microseconds.
func tiedSample(rng *rand.Rand, n, levels int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(100 + rng.IntN(levels))
	}
	return out
}

func TestPropertyComparePInUnitInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for trial := 0; trial < 20000; trial++ {
		n1, n2 := 1+rng.IntN(12), 1+rng.IntN(12)
		if trial%4 == 0 {
			n1, n2 = 1+rng.IntN(60), 1+rng.IntN(60) // the normal approximation
		}
		levels := 1 + rng.IntN(5)
		base, new := tiedSample(rng, n1, levels), tiedSample(rng, n2, levels)
		c := Compare(base, new, DefaultAlpha)
		if !inUnit(c.P) {
			t.Fatalf("Compare(%v, %v): p = %v", base, new, c.P)
		}
		if c.Significant != (c.P <= DefaultAlpha) {
			t.Fatalf("Compare(%v, %v): significant %v with p %v", base, new, c.Significant, c.P)
		}
	}
}

// TestComparePOfPrefix is the reported case: a sample against its own first
// two thirds (tied values) gave p > 1.
func TestComparePOfPrefix(t *testing.T) {
	for _, base := range [][]float64{
		{102, 100, 101, 102, 102, 101, 100}, // p = 1.12 before the fix
		{10, 11, 11, 12, 12, 12},
		{5, 5, 6, 6, 6, 7, 7, 8, 9},
		{1, 2, 2, 3, 3},
	} {
		cut := base[:len(base)*2/3]
		if c := Compare(base, cut, DefaultAlpha); !inUnit(c.P) {
			t.Errorf("Compare(%v, %v): p = %v", base, cut, c.P)
		}
	}
}

func TestPropertyBinomialAndCascadePInUnitInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := 0; trial < 20000; trial++ {
		n := uint64(rng.IntN(50))
		if trial%3 == 0 {
			n = uint64(rng.IntN(1_000_000))
		}
		k := uint64(0)
		if n > 0 {
			k = rng.Uint64N(n + 1)
		}
		p := rng.Float64()
		switch trial % 5 {
		case 0:
			p = 0
		case 1:
			p = 1
		case 2:
			p = 0.5
		}
		got, err := BinomialTest(k, n, p)
		if err != nil || !inUnit(got) {
			t.Fatalf("BinomialTest(%d, %d, %v) = %v, %v", k, n, p, got, err)
		}
		packets := []uint64{k, n - k, uint64(rng.IntN(3))}
		steps, err := Cascade(packets, []float64{p, rng.Float64(), 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			if !inUnit(s.P) {
				t.Fatalf("Cascade(%v): rule %d p = %v", packets, s.Rule, s.P)
			}
		}
	}
}

func TestPropertyFairnessPInUnitInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for trial := 0; trial < 5000; trial++ {
		counts := make([]uint64, 1+rng.IntN(6))
		for i := range counts {
			counts[i] = uint64(rng.IntN(4))
			if trial%2 == 0 {
				counts[i] = uint64(rng.IntN(100000))
			}
		}
		counts[0]++ // a total of zero is an error, not a p-value
		r, err := Fairness(counts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !inUnit(r.P) || math.IsNaN(r.P) {
			t.Fatalf("Fairness(%v): p = %v", counts, r.P)
		}
	}
}
