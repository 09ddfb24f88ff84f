package cost

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

func synthModel(t *testing.T, opts Options) *Model {
	t.Helper()
	if opts.MaxN == 0 {
		opts.MaxN = 20_000 // leave the wild point out
	}
	m, err := CalibrateRun(synthRun(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPredictKnownAnswers: a model calibrated on the synthetic sweep
// predicts the costs the sweep was built from.
func TestPredictKnownAnswers(t *testing.T) {
	m := synthModel(t, Options{})
	tests := []struct {
		name                 string
		q                    Query
		evals                float64
		p50Added, p50Total   float64
		p99Added, cpuPerConn float64 // a uniform p99 walks 99% of the services
		cores                float64
	}{
		{name: "uniform 10k", q: Query{Services: 10000, EndpointsPerService: 1, NewConnPerSec: 1000},
			evals: 5000.5, p50Added: synthUsPerRule * 5000.5, p50Total: synthBaseUs + synthUsPerRule*5000.5,
			p99Added: synthP99PerRule * 0.99 * 10000, cpuPerConn: synthCPUPerRule * 5000.5, cores: 1000 * synthCPUPerRule * 5000.5 / 1e6},
		{name: "last 20k", q: Query{Services: 20000, EndpointsPerService: 2, NewConnPerSec: 5000, Position: PositionLast},
			evals: 20000, p50Added: synthUsPerRule * 20000, p50Total: synthBaseUs + synthUsPerRule*20000,
			p99Added: synthP99PerRule * 20000, cpuPerConn: synthCPUPerRule * 20000, cores: 5000 * synthCPUPerRule * 20000 / 1e6},
		{name: "first 30k", q: Query{Services: 30000, Position: PositionFirst},
			evals: 1, p50Added: synthUsPerRule, p50Total: synthBaseUs + synthUsPerRule,
			p99Added: synthP99PerRule, cpuPerConn: synthCPUPerRule, cores: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Dataplane = "iptables-nft"
			preds, err := m.Predict(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			p := preds[0]
			checks := []struct {
				what      string
				got, want float64
				tol       float64
			}{
				{"evaluations", p.Evaluations, tt.evals, 1e-12},
				{"p50 added", p.P50us.Added.Value, tt.p50Added, 0.02},
				{"p50 total", p.P50us.Total.Value, tt.p50Total, 0.03},
				{"p99 added", p.P99us.Added.Value, tt.p99Added, 0.02},
				{"CPU µs added", p.CPUusPerConn.Added.Value, tt.cpuPerConn, 0.02},
				{"CPU cores", p.CPUCores.Value, tt.cores, 0.02},
			}
			for _, c := range checks {
				if !near(c.got, c.want, c.tol) {
					t.Errorf("%s = %v, want %v (±%.0f%%)", c.what, c.got, c.want, 100*c.tol)
				}
			}
			for _, e := range []Estimate{p.P50us.Added, p.P50us.Total, p.P99us.Added, p.CPUusPerConn.Added, *p.CPUCores} {
				if e.NoInterval || e.Lo > e.Value || e.Hi < e.Value {
					t.Errorf("interval %+v does not bracket its value", e)
				}
			}
		})
	}
}

// TestPredictSyncAndSize: sync times follow the synthetic line at the
// predicted ruleset's rules, which are exact.
func TestPredictSyncAndSize(t *testing.T) {
	m := synthModel(t, Options{})
	preds, err := m.Predict(Query{Services: 8000, EndpointsPerService: 3, Dataplane: "iptables-nft"})
	if err != nil {
		t.Fatal(err)
	}
	p := preds[0]
	if want := 9 + 8000*(3*3+2); p.Ruleset.Rules != want || p.Ruleset.Mode != "iptables" || !p.Ruleset.BytesExact {
		t.Fatalf("ruleset %+v, want %d iptables rules, exact bytes", p.Ruleset, want)
	}
	rules := float64(p.Ruleset.Rules)
	if want := synthSyncBase + synthSyncPerRul*rules; !near(p.SyncFull.Seconds.Value, want, 1e-9) || p.SyncFull.Form != FormLinear {
		t.Errorf("full sync %+v, want %v s (linear)", p.SyncFull, want)
	}
	if want := synthIncrPerRul * rules; !near(p.SyncIncremental.Seconds.Value, want, 1e-9) {
		t.Errorf("incremental sync %+v, want %v s", p.SyncIncremental, want)
	}
	if want := rules / float64(18+5*20000); !near(p.SyncFull.Extrapolation, want, 1e-12) {
		t.Errorf("sync extrapolation %v, want %v", p.SyncFull.Extrapolation, want)
	}
}

// TestPredictMapLookupGrowsWithLogN: an nftables lookup walks nothing; one
// hot service's p50 stays constant, uniformly spread services' creeps up
// with ln N (cache misses in a growing map), and each interval covers the
// truth at 5× the calibration.
func TestPredictMapLookupGrowsWithLogN(t *testing.T) {
	m := synthModel(t, Options{})
	tests := []struct {
		position string
		want     func(n int) float64
	}{
		{PositionLast, func(int) float64 { return synthNftP50 }},
		{PositionUniform, func(n int) float64 { return synthNftP50 + synthNftPerLnN*math.Log(float64(n)) }},
	}
	for _, tt := range tests {
		for _, n := range []int{100, 20000, 100000} {
			preds, err := m.Predict(Query{Services: n, EndpointsPerService: 1, NewConnPerSec: 1000, Dataplane: "nftables", Position: tt.position})
			if err != nil {
				t.Fatal(err)
			}
			p := preds[0]
			if p.Lookup != MapLookup || p.Evaluations != 1 || p.P50us.PerEvaluation != nil {
				t.Fatalf("%s, %d services: %+v", tt.position, n, p)
			}
			total, want := p.P50us.Total, tt.want(n)
			if math.Abs(total.Value-want) > 0.3 || total.Lo > want || total.Hi < want {
				t.Errorf("%s, %d services: p50 %v [%v, %v], want about %v inside the interval", tt.position, n, total.Value, total.Lo, total.Hi, want)
			}
		}
	}
}

// TestCalibrationOptions: MaxN leaves the wild point out; without it the
// fit is ruined and says so; FitUpperHalf uses only the large sizes.
func TestCalibrationOptions(t *testing.T) {
	good := synthModel(t, Options{})
	dm, _ := good.Dataplane("iptables-nft")
	if dm.MaxServices != 20000 || dm.P50.Points != 15 || dm.P99.Points != 10 || dm.CPU.Points != 5 || !near(dm.P50.Line.Slope, synthUsPerRule, 0.02) {
		t.Errorf("MaxN 20000: max %d, p50 %d points (last, middle, uniform), p99 %d (last, middle), CPU %d (last), slope %v",
			dm.MaxServices, dm.P50.Points, dm.P99.Points, dm.CPU.Points, dm.P50.Line.Slope)
	}
	all, err := CalibrateRun(synthRun(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dm, _ = all.Dataplane("iptables-nft")
	if dm.MaxServices != synthOutlierN || near(dm.P50.Line.Slope, synthUsPerRule, 0.5) || !hasWarning(dm.Warnings, "poor linear fit") {
		t.Errorf("without MaxN: max %d, slope %v, warnings %q", dm.MaxServices, dm.P50.Line.Slope, dm.Warnings)
	}
	upper := synthModel(t, Options{Range: FitUpperHalf})
	dm, _ = upper.Dataplane("iptables-nft")
	// 10k and 20k: last, middle and uniform for p50; last for CPU.
	if dm.P50.Points != 6 || dm.P99.Points != 4 || dm.CPU.Points != 2 || !dm.CPU.PerEvaluation().NoInterval {
		t.Errorf("upper half: p50 %d points, p99 %d, CPU %d (interval %v)", dm.P50.Points, dm.P99.Points, dm.CPU.Points, !dm.CPU.PerEvaluation().NoInterval)
	}
}

func hasWarning(warnings []string, sub string) bool {
	for _, w := range warnings {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func TestPredictFlagsExtrapolation(t *testing.T) {
	m := synthModel(t, Options{})
	preds, err := m.Predict(Query{Services: 50000, EndpointsPerService: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range preds {
		if p.Extrapolation != 2.5 || !p.Beyond || !hasWarning(p.Warnings, "beyond calibration") {
			t.Errorf("%s: extrapolation %v, beyond %v, warnings %q", p.Dataplane, p.Extrapolation, p.Beyond, p.Warnings)
		}
	}
	preds, _ = m.Predict(Query{Services: 30000, EndpointsPerService: 1})
	if p := preds[0]; p.Extrapolation != 1.5 || p.Beyond {
		t.Errorf("30000 services: extrapolation %v, beyond %v; want 1.5, not beyond", p.Extrapolation, p.Beyond)
	}
}

func TestPredictRejects(t *testing.T) {
	m := synthModel(t, Options{})
	tests := []struct {
		name string
		q    Query
		want string
	}{
		{"no services", Query{Services: 0}, "services 0"},
		{"too many services", Query{Services: MaxQueryServices + 1}, "services"},
		{"negative endpoints", Query{Services: 10, EndpointsPerService: -1}, "endpoints per service -1"},
		{"negative rate", Query{Services: 10, NewConnPerSec: -5}, "new connections"},
		{"unknown position", Query{Services: 10, Position: "centre"}, `position "centre"`},
		{"uncalibrated dataplane", Query{Services: 10, Dataplane: "ipvs"}, `"ipvs" is not in the calibration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Predict(tt.q)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestCalibrateRejects(t *testing.T) {
	tests := []struct {
		name string
		run  *Run
		opts Options
		want string
	}{
		{"negative MaxN", synthRun(), Options{MaxN: -1}, "MaxN"},
		{"unknown range", synthRun(), Options{Range: "middle"}, "range"},
		{"BeyondFactor below 1", synthRun(), Options{BeyondFactor: 0.5}, "BeyondFactor"},
		{"MaxN leaves one size", synthRun(), Options{MaxN: 1}, "no dataplane"},
		{"unknown dataplane only", &Run{Source: Source{Name: "x"}, Points: []results.Point{{Dataplane: "ebpf", Services: 1, Position: "last", P50us: 1}}}, Options{}, "no dataplane"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CalibrateRun(tt.run, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestP99FromTheSameDistribution: a rule walk's p99 at the last position is
// its predicted p50 plus the calibration points' own median p99 − p50 (the
// jitter, the same at every size), not a second line and not a ratio: with
// scattered p99s (scheduler delays at one size) the p99 still follows the
// p50's growth, and the blown-up size widens the interval only.
func TestP99FromTheSameDistribution(t *testing.T) {
	run := synthRun()
	for i, p := range run.Points {
		if p.Services == 2500 && p.Dataplane == "iptables-nft" {
			run.Points[i].P99us = 40 * p.P50us // one size's tail blown up by scheduling
		}
	}
	m, err := CalibrateRun(run, Options{MaxN: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	for _, position := range []string{PositionLast, PositionUniform} {
		preds, err := m.Predict(Query{Services: 100_000, Position: position, Dataplane: "iptables-nft"})
		if err != nil {
			t.Fatal(err)
		}
		p := preds[0]
		base := p.P50us.Total.Value
		if position == PositionUniform {
			// the slowest 1% of uniformly spread connections walk 99% of the services
			base = synthBaseUs + synthUsPerRule*0.99*100_000
		}
		if got, want := p.P99us.Total.Value, base+synthJitterUs; !near(got, want, 0.02) {
			t.Errorf("%s: p99 at 100k = %v, want %v (the p50 %v + %v µs)", position, got, want, base, synthJitterUs)
		}
		if r := m.Dataplanes[0].P99Tail; r == nil || r.Excess.Hi < 39*synthBaseUs || !p.P99us.Total.Contains(p.P99us.Total.Value) {
			t.Errorf("%s: tail %+v, interval %+v: the blown-up size must widen the interval, not move the value", position, r, p.P99us.Total)
		}
	}
}

// TestPredictNamesFewRepetitions: a prediction beyond calibration from a
// calibration of fewer than PlanRepetitions repetitions a size (a 3-minute
// svclab plan calibrate: 2) says so and how to calibrate for it; one of 9
// (--reps 9) does not.
func TestPredictNamesFewRepetitions(t *testing.T) {
	tests := []struct {
		dir  string
		reps int
		note bool
	}{
		{"../../results/plan-calibrate-check/calibration-a", 2, true},
		{"../../results/plan-calibrate-check/calibration-c", 9, false},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.dir), func(t *testing.T) {
			m, err := Calibrate(tt.dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			preds, err := m.Predict(Query{Services: 50000, EndpointsPerService: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range preds {
				dm, _ := m.Dataplane(p.Dataplane)
				if dm.Repetitions != tt.reps || hasWarning(p.Warnings, "repetitions a size") != tt.note || !p.Beyond {
					t.Errorf("%s: %d repetitions (want %d), beyond %v, warnings %q", p.Dataplane, dm.Repetitions, tt.reps, p.Beyond, p.Warnings)
				}
			}
		})
	}
}
