package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// Every p-value compare prints or stores lies in [0, 1] (issue 10 point
// 10): the rows' Mann-Whitney p, the gate's Benjamini-Hochberg q, and the
// smallest attainable p.

func inUnit(p float64) bool { return p >= 0 && p <= 1 }

// bhByDefinition is q(i) = min over j ≥ rank(i) of min(1, m·p(j)/j).
func bhByDefinition(p []float64) []float64 {
	m := len(p)
	sorted := slices.Clone(p)
	slices.Sort(sorted)
	q := make([]float64, m)
	for i, v := range p {
		rank := slices.Index(sorted, v) + 1 // the first of equal values: its q is the same
		best := 1.0
		for j := rank; j <= m; j++ {
			best = min(best, sorted[j-1]*float64(m)/float64(j))
		}
		q[i] = best
	}
	return q
}

func TestPropertyBenjaminiHochberg(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 20))
	for trial := 0; trial < 5000; trial++ {
		p := make([]float64, 1+rng.IntN(40))
		for i := range p {
			switch rng.IntN(4) {
			case 0:
				p[i] = 1
			case 1:
				p[i] = float64(rng.IntN(4)) / 4 // ties
			default:
				p[i] = rng.Float64() * rng.Float64()
			}
		}
		q := BenjaminiHochberg(p)
		want := bhByDefinition(p)
		for i := range p {
			if !inUnit(q[i]) || q[i] < p[i]-1e-12 || math.Abs(q[i]-want[i]) > 1e-12 {
				t.Fatalf("p %v\nq %v\nwant %v (index %d)", p, q, want, i)
			}
			for j := range p {
				if p[i] < p[j] && q[i] > q[j] {
					t.Fatalf("q not monotone in p: p %v q %v", p, q)
				}
			}
		}
	}
}

func TestBenjaminiHochbergOutOfRangeInput(t *testing.T) {
	q := BenjaminiHochberg([]float64{math.NaN(), 1.4, -0.1, 0.01})
	for i, v := range q {
		if !inUnit(v) {
			t.Fatalf("q[%d] = %v of %v", i, v, q)
		}
	}
}

func TestPropertyRowsAndGatePInUnitInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for trial := 0; trial < 500; trial++ {
		var base, cut [][]results.Record
		for _, n := range []int{1, 1000, 2000} {
			values := make([]float64, 1+rng.IntN(9))
			for i := range values {
				values[i] = float64(100 + rng.IntN(3))
			}
			base = append(base, pointRecords("iptables-nft", n, "last", values...))
			cut = append(cut, pointRecords("iptables-nft", n, "last", values[:max(1, len(values)*2/3)]...))
		}
		res, err := Compare(syntheticRun("a", base...), syntheticRun("b", cut...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Rows {
			if !inUnit(r.P) {
				t.Fatalf("%s %s: p = %v", r.Metric.Name, r.Point(), r.P)
			}
		}
		for _, c := range []Correction{CorrectionBH, CorrectionNone} {
			for _, f := range Gate(res, GateOptions{Thresholds: NewThresholds(), Correction: c, Scope: ScopePoints}).Failures {
				if !inUnit(f.Q) || !inUnit(f.Row.P) {
					t.Fatalf("gate failure %v", f)
				}
			}
			for _, q := range adjusted(res.Rows, c) {
				if !inUnit(q) {
					t.Fatalf("adjusted p %v", q)
				}
			}
		}
	}
}

func TestPropertyMinPValue(t *testing.T) {
	for n1 := -1; n1 < 60; n1++ {
		for n2 := -1; n2 < 60; n2++ {
			if p := MinPValue(n1, n2); !inUnit(p) {
				t.Fatalf("MinPValue(%d, %d) = %v", n1, n2, p)
			}
		}
	}
}
