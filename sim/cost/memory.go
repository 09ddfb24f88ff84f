package cost

import (
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// MemLine is the kernel memory a ruleset takes (MB: the growth across the
// load of the lab's kernel-memory measure, docs/measurements.md "Kernel
// memory", machine-wide and so approximate) against its rules, a
// least-squares line.
type MemLine struct {
	Line     stats.Fit `json:"line"`
	MaxRules float64   `json:"max_rules"`
	// Load is how much one load's memory scatters around its size's
	// median, relative (nil when the run recorded no loads): the line's
	// residuals are in MB and so hold the small sizes' scatter, while a
	// large ruleset's scatters by a share of itself (iptables-nft's 50,000
	// Services 182-194 MB over five loads of one run).
	Load *LoadSpread `json:"load,omitempty"`
	// HashTables is true for a dataplane whose rules nf_tables holds
	// (nftables, iptables-nft): the line is fitted to the memory less the
	// bucket arrays of the ruleset's kernel hash tables, which step where
	// a table crosses 3/4 of a power of two (hashtable.go), and a
	// prediction adds its ruleset's arrays back.
	HashTables bool `json:"hash_tables,omitempty"`
}

// fitMemLine fits the points (each size's median) that measured kernel
// memory, less their hash tables' arrays when hashTables, and their loads'
// spread (nil when fewer than 3 sizes did). A point's endpoints per
// service are those its recorded rules and lines give (pointEndpoints).
func fitMemLine(points, loads []results.Point, mode string, hashTables bool) *MemLine {
	var x, y []float64
	m := &MemLine{HashTables: hashTables}
	for _, p := range points {
		if p.KernelMemBytes > 0 && p.Rules > 0 {
			mb, err := m.lessHashTables(kernelMemMB(p), mode, p)
			if err != nil {
				return nil
			}
			x, y = append(x, float64(p.Rules)), append(y, mb)
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
	m.Load = fitLoadSpread(loads, mode, m.MaxRules, kernelMemMB)
	return m
}

// kernelMemMB is a point's kernel memory in MB (0 when not measured).
func kernelMemMB(p results.Point) float64 { return float64(p.KernelMemBytes) / 1e6 }

// lessHashTables is mb, measured for mode's synthetic ruleset of point p,
// less its hash tables' arrays when the line leaves them out.
func (m MemLine) lessHashTables(mb float64, mode string, p results.Point) (float64, error) {
	if !m.HashTables {
		return mb, nil
	}
	tables, err := syntheticHashTables(mode, p.Services, pointEndpoints(mode, p))
	return mb - hashTablesMB(tables), err
}

// at is the memory at rules with a 95% interval for one more measurement
// like the fitted ones (each a size's median over its repetitions), never
// negative: how much a load's memory varies (iptables-legacy's 50,000
// Services measured 109 to 135 MB over three loads in one run) is part of
// what a measurement will show, not only where the line lies. The line's
// own interval is widened by the loads' relative spread, and the
// ruleset's hash tables' arrays added when the line leaves them out.
func (m MemLine) at(size Size) Estimate {
	y, lo, hi := stats.PredictObservation(m.Line, float64(size.Rules))
	est := m.Load.widen(Estimate{Value: y, Lo: lo, Hi: hi})
	if m.HashTables {
		arrays := hashTablesMB(size.HashTables)
		est = est.Plus(Estimate{Value: arrays, Lo: arrays, Hi: arrays})
	}
	return est.NonNegative()
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
