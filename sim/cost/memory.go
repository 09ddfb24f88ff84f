package cost

import (
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// MemLine is the kernel memory a ruleset takes (MB: the growth across the
// load of Slab + VmallocUsed less the slab caches' free objects,
// machine-wide and so approximate) against its rules, a least-squares line.
type MemLine struct {
	Line     stats.Fit `json:"line"`
	MaxRules float64   `json:"max_rules"`
}

// fitMemLine fits the points that measured kernel memory (nil when fewer
// than 3 sizes did).
func fitMemLine(points []results.Point) *MemLine {
	var x, y []float64
	m := &MemLine{}
	for _, p := range points {
		if p.KernelMemBytes > 0 && p.Rules > 0 {
			x, y = append(x, float64(p.Rules)), append(y, float64(p.KernelMemBytes)/1e6)
			m.MaxRules = max(m.MaxRules, float64(p.Rules))
		}
	}
	if distinctCount(x) < 3 {
		return nil
	}
	line, err := stats.LinearFit(x, y)
	if err != nil {
		return nil
	}
	m.Line = line
	return m
}

// at is the memory at rules with a 95% interval for one more measurement
// like the fitted ones (each a size's median over its repetitions), never
// negative: how much a load's memory varies (iptables-legacy's 50,000
// Services measured 109 to 135 MB over three loads in one run) is part of
// what a measurement will show, not only where the line lies.
func (m MemLine) at(rules float64) Estimate {
	y, lo, hi := stats.PredictObservation(m.Line, rules)
	return Estimate{Value: y, Lo: lo, Hi: hi}.NonNegative()
}

// p50For is the p50 curve for a position: for uniformly random services
// behind a map lookup the uniform points' own constant when calibrated,
// else (and for every rule walk) the line pooling every position, which
// extrapolated 10x better on the recorded sweeps (results/plan-holdout).
func (dm *DataplaneModel) p50For(position string) CostCurve {
	if position == PositionUniform && dm.P50Uniform != nil && dm.Lookup == MapLookup {
		return *dm.P50Uniform
	}
	return dm.P50
}

// p99For is the p99 curve for a position: the uniform one for uniformly
// random services when calibrated, else the fixed positions' curve.
func (dm *DataplaneModel) p99For(position string) *CostCurve {
	if position == PositionUniform && dm.P99Uniform != nil {
		return dm.P99Uniform
	}
	return dm.P99
}
