package cost

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/sim/results"
)

// Known answers of the synthetic calibration.
const (
	synthBaseUs     = 15.0   // p50 base
	synthUsPerRule  = 0.02   // p50: 20 ns per rule walked
	synthJitterUs   = 25.0   // every point's p99 is its p50 + 25 µs of jitter
	synthP99PerRule = 0.02   // so p99 adds the p50's 20 ns per rule
	synthCPUBase    = 100.0  // µs per connection
	synthCPUPerRule = 0.025  // 25 ns of CPU per rule
	synthNftP50     = 14.0   // the nftables constant (one hot service)
	synthNftPerLnN  = 0.5    // the growth of nftables' uniform p50 per ln N
	synthSyncBase   = 0.05   // full sync: 50 ms + 4 µs per rule
	synthSyncPerRul = 4e-6   //
	synthIncrPerRul = 1e-6   // incremental sync: 1 µs per rule
	synthOutlierN   = 40_000 // a point that MaxN must leave out
)

var synthServices = []int{1, 2500, 5000, 10000, 20000}

// synthNoise is a deterministic wobble that sums to zero over the sizes,
// so fits are close to, not exactly, the known answers.
func synthNoise(n int) float64 {
	return map[int]float64{1: 0.2, 2500: -0.3, 5000: 0.1, 10000: 0.3, 20000: -0.3, synthOutlierN: 0}[n]
}

// synthPoint is a median point of the synthetic sweep, exact up to
// synthNoise; its ruleset is 18 + 5N rules (one endpoint per service).
func synthPoint(dataplane, position string, n int) results.Point {
	rules := 18 + 5*n
	evals := float64(n)
	if position == PositionUniform || position == PositionMiddle {
		evals = float64(n+1) / 2
	}
	p := results.Point{Dataplane: dataplane, Services: n, Position: position, Rules: rules,
		SyncFullS:        synthSyncBase + synthSyncPerRul*float64(rules),
		SyncIncrementalS: synthIncrPerRul * float64(rules),
		CPUusPerConn:     synthCPUBase + synthCPUPerRule*float64(n) + synthNoise(n),
	}
	if dataplane == "nftables" {
		p.P50us, p.P99us, p.CPUusPerConn = synthNftP50+synthNoise(n), 3*synthNftP50, synthCPUBase+synthNoise(n)
		if position == PositionUniform {
			p.P50us += synthNftPerLnN * math.Log(float64(n))
		}
		return p
	}
	p.P50us = synthBaseUs + synthUsPerRule*evals + synthNoise(n)
	p.P99us = p.P50us + synthJitterUs
	return p
}

// synthRun is the synthetic sweep: iptables-nft at last, middle and
// uniform, nftables at last and uniform, and one wild point at
// synthOutlierN.
func synthRun() *Run {
	var points []results.Point
	for _, n := range synthServices {
		points = append(points, synthPoint("iptables-nft", PositionLast, n), synthPoint("iptables-nft", PositionMiddle, n),
			synthPoint("iptables-nft", PositionUniform, n), synthPoint("nftables", PositionLast, n),
			synthPoint("nftables", PositionUniform, n))
	}
	wild := synthPoint("iptables-nft", PositionLast, synthOutlierN)
	wild.P50us, wild.P99us, wild.CPUusPerConn = 1e6, 1e6, 1e6
	points = append(points, wild)
	return &Run{Source: Source{Name: "synthetic", Run: "svl-synth", Kernel: "6.1.0-test", CPU: "Test CPU", CPUs: 2}, Points: points}
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got))
}

// near says whether got is within tol (relative) of want.
func near(got, want, tol float64) bool {
	if want == 0 {
		return got > -tol && got < tol
	}
	d := (got - want) / want
	return d > -tol && d < tol
}
