package compare

import (
	"fmt"
	"math"

	"github.com/svclab/svclab/sim/stats"
)

// The gate's primary comparisons pool every matched point of a dataplane:
// each point's values, base and new alike, are divided by that point's base
// median (aligned), and the aligned values of all points are compared as
// one sample per side. A change that a code or kernel change makes
// everywhere (every latency 10% higher) then shows in one comparison with
// every repetition of every point, where one point's few repetitions could
// not show it, and the multiple-comparison correction runs over a handful
// of primary comparisons instead of dozens. The per-point rows stay in the
// report.

// pooledRows returns one pooled row per metric and dataplane pair.
func pooledRows(m matching, bs, ns samples, opts Options) []Row {
	var out []Row
	for _, metric := range allMetrics() {
		for _, group := range groupPairs(m.pairs, metric) {
			if row, ok := pooledRow(metric, group, bs, ns, opts); ok {
				out = append(out, row)
			}
		}
	}
	return out
}

// groupPairs groups the pairs of metric's kind by their dataplanes, in
// pair order.
func groupPairs(pairs []pair, metric Metric) [][]pair {
	var order []string
	groups := map[string][]pair{}
	for _, p := range pairs {
		if isFairness(p.base) != metric.OfFairness {
			continue
		}
		k := p.base.Dataplane + "→" + p.new.Dataplane
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p)
	}
	out := make([][]pair, len(order))
	for i, k := range order {
		out[i] = groups[k]
	}
	return out
}

// pooledRow compares metric over the aligned values of every pair of the
// group; ok is false when no pair has values on both sides.
func pooledRow(metric Metric, group []pair, bs, ns samples, opts Options) (Row, bool) {
	var b, n []float64
	points := 0
	for _, p := range group {
		bv, nv := bs.values[p.base][metric.Name], ns.values[p.new][metric.Name]
		center := stats.Median(bv)
		if len(bv) == 0 || len(nv) == 0 || center == 0 || math.IsNaN(center) {
			continue
		}
		b, n = append(b, scaledBy(bv, center)...), append(n, scaledBy(nv, center)...)
		points++
	}
	if points == 0 {
		return Row{}, false
	}
	first := group[0]
	row := rowOf(metric, Key{Dataplane: first.base.Dataplane}, Key{Dataplane: first.new.Dataplane}, b, n, opts)
	row.Pooled = points
	return row, true
}

func scaledBy(values []float64, center float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = v / center
	}
	return out
}

// pooledLabel names a pooled row: its dataplanes and how many points it
// pools, e.g. "iptables-nft (4 points)" or "nftables→iptables-nft (4 points)".
func pooledLabel(r Row) string {
	dp := r.Base.Dataplane
	if r.New.Dataplane != r.Base.Dataplane {
		dp += "→" + r.New.Dataplane
	}
	unit := "points"
	if r.Metric.OfFairness {
		unit = "services"
	}
	if r.Pooled == 1 {
		unit = unit[:len(unit)-1]
	}
	return fmt.Sprintf("%s (%d %s)", dp, r.Pooled, unit)
}

// repetitionsPerPoint is the row's smaller sample size per point.
func (r Row) repetitionsPerPoint() int {
	n := min(r.BaseStats.N, r.NewStats.N)
	if r.Pooled > 1 {
		n /= r.Pooled
	}
	return n
}
