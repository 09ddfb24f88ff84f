package compare

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestGate checks the verdict on real runs (run1, run2: five repetitions;
// ci1, ci2: two runs of ci-smoke, six repetitions), on a quiet synthetic
// run, and on copies of them rewritten in memory. A noisy run compared
// with itself or a planted change near the threshold is INCONCLUSIVE,
// never PASS; PASS needs intervals that exclude the threshold.
func TestGate(t *testing.T) {
	run1, ci1, ci2 := loadTestRun(t, "run1"), loadTestRun(t, "ci1"), loadTestRun(t, "ci2.jsonl")
	quiet := quietRun()
	tests := []struct {
		name        string
		base, new   *Run
		thresholds  []string
		correction  Correction
		scope       Scope
		want        Outcome
		wantFail    []string // metrics named, in row order
		wantLine    string
		wantCanFail bool
	}{
		{name: "ci-smoke compared with itself: too noisy to pass", base: ci1, new: ci1, wantCanFail: true, want: Inconclusive},
		{name: "second ci-smoke run", base: ci1, new: ci2, wantCanFail: true, want: Inconclusive},
		{name: "second ci-smoke run, other way", base: ci2, new: ci1, wantCanFail: true, want: Inconclusive},
		// Per point and without correction, one of the 40 testable
		// comparisons of two runs of the same scenario is "significant":
		// p99 is noisy.
		{name: "second ci-smoke run, per point, no correction", base: ci2, new: ci1, correction: CorrectionNone, scope: ScopePoints,
			wantCanFail: true, want: Regression,
			wantFail: []string{"p99_us"}, wantLine: "REGRESSION p99_us nftables/1000/last: +51.1% (p=0.041, threshold 10%)"},
		{name: "ci-smoke, latencies 30% higher", base: ci1, new: scaled(ci1, 1.3), wantCanFail: true, want: Regression,
			wantFail: []string{"p50_us", "p90_us"}, wantLine: "REGRESSION p50_us iptables-nft (4 points): +30.0% (p=0.000, q=0.000, threshold 10%)"},
		{name: "ci-smoke, latencies 30% higher, per point", base: ci1, new: scaled(ci1, 1.3), scope: ScopePoints, wantCanFail: true,
			want: Regression, wantFail: []string{"p50_us"},
			wantLine: "REGRESSION p50_us iptables-nft/1000/last: +30.0% (p=0.002, q=0.029, threshold 10%)"},
		{name: "ci-smoke, latencies 10% higher (the threshold): never PASS", base: ci1, new: scaled(ci1, 1.1), wantCanFail: true, want: Inconclusive},
		{name: "ci-smoke, latencies 15% higher", base: ci1, new: scaled(ci1, 1.15), wantCanFail: true, want: Regression,
			wantFail: []string{"p50_us", "p90_us"}},
		{name: "five repetitions, latencies 30% higher, per point, no correction", base: run1, new: scaled(run1, 1.3),
			correction: CorrectionNone, scope: ScopePoints, wantCanFail: true, want: Regression, wantFail: []string{"p50_us"},
			wantLine: "REGRESSION p50_us nftables/20000/last: +30.0% (p=0.008, threshold 10%)"},
		{name: "five repetitions, latencies 30% higher, pooled", base: run1, new: scaled(run1, 1.3), wantCanFail: true,
			want: Regression, wantFail: []string{"p50_us"}},
		// The quiet run measures sync once per point: one sample, which
		// can never show a change, so the gate cannot pass it.
		{name: "quiet run compared with itself, sync measured once", base: quiet, new: quiet, wantCanFail: true, want: Inconclusive},
		{name: "quiet run compared with itself", base: quiet, new: quiet, thresholds: []string{"sync=off"}, wantCanFail: true, want: Pass},
		{name: "quiet run, latencies 30% higher", base: quiet, new: scaled(quiet, 1.3), wantCanFail: true, want: Regression,
			wantFail: []string{"p50_us", "p90_us", "p99_us"},
			wantLine: "REGRESSION p99_us iptables-nft (1 point): +30.0% (p=0.002, q=0.004, threshold 10%)"},
		{name: "latencies 30% lower is an improvement", base: scaled(quiet, 1.3), new: quiet, thresholds: []string{"sync=off"}, wantCanFail: true, want: Pass},
		{name: "latencies 5% higher: known to be below the threshold", base: quiet, new: scaled(quiet, 1.05), thresholds: []string{"sync=off"}, wantCanFail: true, want: Pass},
		{name: "latencies 8% higher: interval reaches the threshold", base: quiet, new: scaled(quiet, 1.08), thresholds: []string{"sync=off"}, wantCanFail: true, want: Inconclusive},
		{name: "latency threshold raised to 35%", base: quiet, new: scaled(quiet, 1.3), thresholds: []string{"latency=35", "sync=off"}, wantCanFail: true, want: Pass},
		{name: "latency off, p99 at 20", base: quiet, new: scaled(quiet, 1.3), thresholds: []string{"latency=off", "p99_us=20"},
			wantCanFail: true, want: Regression, wantFail: []string{"p99_us"}},
		{name: "connection rate 30% lower", base: quiet, new: scaledRate(quiet, 0.7), wantCanFail: true, want: Regression,
			wantFail: []string{"conn_per_s"}},
		{name: "connection rate 30% higher", base: quiet, new: scaledRate(quiet, 1.3), thresholds: []string{"sync=off"}, wantCanFail: true, want: Pass},
		{name: "nothing gated", base: quiet, new: scaled(quiet, 1.3), want: Pass,
			thresholds: []string{"latency=off", "cpu=off", "sync=off", "conn_per_s=off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(tt.base, tt.new, Options{})
			if err != nil {
				t.Fatal(err)
			}
			th := NewThresholds()
			for _, s := range tt.thresholds {
				if err := th.Set(s); err != nil {
					t.Fatal(err)
				}
			}
			v := Gate(res, GateOptions{Thresholds: th, Correction: tt.correction, Scope: tt.scope})
			if got := v.CanFail() == nil; got != tt.wantCanFail {
				t.Fatalf("CanFail() = %v, want error %v", v.CanFail(), !tt.wantCanFail)
			}
			if v.Outcome() != tt.want || !strings.HasPrefix(v.String(), string(tt.want)+":") {
				t.Errorf("verdict %q, want %s\n%v\n%v", v, tt.want, v.Failures, v.Undecided)
			}
			if got := v.FailedMetrics(); !slices.Equal(got, tt.wantFail) {
				t.Errorf("failed metrics %v, want %v\n%v", got, tt.wantFail, v.Failures)
			}
			if tt.wantLine != "" && !slices.ContainsFunc(v.Failures, func(f Failure) bool { return f.String() == tt.wantLine }) {
				t.Errorf("no failure line %q in %v", tt.wantLine, v.Failures)
			}
		})
	}
}

// TestBenjaminiHochberg checks adjusted p-values computed by hand from the
// definition q(i) = min over j ≥ i of m·p(j)/j (p sorted); R's
// p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") gives the first case too.
func TestBenjaminiHochberg(t *testing.T) {
	tests := []struct {
		p, want []float64
	}{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		{[]float64{0.002, 0.002, 0.002, 0.5, 1}, []float64{5.0 / 3 * 0.002, 5.0 / 3 * 0.002, 5.0 / 3 * 0.002, 0.625, 1}},
		{[]float64{0.9, 0.8}, []float64{0.9, 0.9}},
		{[]float64{0.041}, []float64{0.041}},
		{nil, []float64{}},
	}
	for _, tt := range tests {
		got := BenjaminiHochberg(tt.p)
		if len(got) != len(tt.want) {
			t.Fatalf("BH(%v) = %v, want %v", tt.p, got, tt.want)
		}
		for i := range got {
			if math.Abs(got[i]-tt.want[i]) > 1e-12 {
				t.Errorf("BH(%v) = %v, want %v", tt.p, got, tt.want)
				break
			}
		}
	}
}

// quietRun is a synthetic sweep with six repetitions at two points whose
// values vary by 1% steps: any 30% shift separates the samples completely.
func quietRun() *Run {
	var records []results.Record
	for rep := range 6 {
		for _, dp := range []string{"iptables-nft", "nftables"} {
			f := 1 + 0.01*float64(rep)
			p := &results.Point{Dataplane: dp, Services: 1000, Position: "last", Repetition: rep + 1,
				P50us: 50 * f, P90us: 80 * f, P99us: 200 * f, CPUusPerConn: 120 * f, ConnPerSec: 9000 * f,
				SyncFullS: 0.5, SyncIncrementalS: 0.1}
			records = append(records, results.Record{Schema: results.SchemaVersion, Type: results.TypePoint, Point: p})
		}
	}
	return syntheticRun("quiet", records)
}

// scaledRate returns a copy of run with every connection rate multiplied.
func scaledRate(run *Run, factor float64) *Run {
	out := &Run{Path: run.Path + "+rate", Meta: run.Meta}
	for _, r := range run.Records {
		if r.Type == results.TypePoint {
			p := *r.Point
			p.ConnPerSec *= factor
			r.Point = &p
		}
		out.Records = append(out.Records, r)
	}
	return out
}

// TestGateBlind: with three repetitions per side no change can be
// significant at 0.05, so the gate refuses to decide rather than pass.
func TestGateBlind(t *testing.T) {
	base := syntheticRun("base", pointRecords("iptables-nft", 1000, "last", 100, 101, 102))
	new := syntheticRun("new", pointRecords("iptables-nft", 1000, "last", 200, 201, 202))
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := Gate(res, GateOptions{Thresholds: NewThresholds(), Scope: ScopePoints})
	err = v.CanFail()
	if !errors.Is(err, ErrCannotFail) || !strings.Contains(err.Error(), "n=3+3") || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("CanFail() = %v", err)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "can never be significant") }) {
		t.Errorf("no power warning in %q", res.Warnings)
	}
}

// TestCrossDataplane: an nftables run as base and an iptables-nft run as
// new, at 20,000 services, flag latency; the matching is explained.
func TestCrossDataplane(t *testing.T) {
	run1 := loadTestRun(t, "run1")
	run2 := loadTestRun(t, "run2.jsonl")
	tests := []struct {
		name      string
		base, new *Run
		opts      Options
		wantAuto  bool
	}{
		{"one dataplane per run: matched by itself", onlyDataplane(run1, "nftables"), onlyDataplane(run1, "iptables-nft"), Options{}, true},
		{"chosen dataplanes of two full runs", run1, run2, Options{BaseDataplane: "nftables", NewDataplane: "iptables-nft"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(tt.base, tt.new, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.AcrossDataplanes || !strings.Contains(res.Matching, "base dataplane nftables compared with new dataplane iptables-nft") ||
				strings.Contains(res.Matching, "by itself") || strings.Contains(res.Matching, "single dataplane") != tt.wantAuto {
				t.Errorf("matching %q", res.Matching)
			}
			for _, metric := range []string{"p50_us", "p90_us", "p99_us"} {
				if row := findRow(t, res, metric, "nftables→iptables-nft/20000/last"); row.Change != Worse || row.DeltaPct < 100 {
					t.Errorf("%s: change %v %+.1f%%, want worse by far", metric, row.Change, row.DeltaPct)
				}
			}
			failed := Gate(res, GateOptions{Thresholds: NewThresholds(), Scope: ScopePoints}).FailedMetrics()
			for _, metric := range []string{"p50_us", "p90_us", "p99_us"} {
				if !slices.Contains(failed, metric) {
					t.Errorf("gate did not flag %s: %v", metric, failed)
				}
			}
		})
	}
}

func TestMatchingErrors(t *testing.T) {
	run1 := loadTestRun(t, "run1")
	split := loadTestRun(t, "split2")
	tests := []struct {
		name      string
		base, new *Run
		opts      Options
		want      string
		noCommon  bool
	}{
		{"sweep vs fairness", run1, split, Options{}, "no point is measured in both runs", true},
		{"missing dataplane", run1, run1, Options{BaseDataplane: "ipvs"}, "the base run has no dataplane ipvs (it has iptables-nft, nftables)", false},
		{"different service counts", syntheticRun("a", pointRecords("nftables", 1, "last", 1, 2, 3, 4)),
			syntheticRun("b", pointRecords("nftables", 2, "last", 1, 2, 3, 4)), Options{}, "no point is measured in both runs", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(tt.base, tt.new, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, ErrNoCommonPoints) != tt.noCommon {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestThresholdsSet(t *testing.T) {
	tests := []struct {
		setting string
		check   map[string]float64 // -1: absent
		wantErr string
	}{
		{setting: "p99_us=25", check: map[string]float64{"p99_us": 25, "p50_us": 10}},
		{setting: "latency=15%", check: map[string]float64{"p50_us": 15, "p90_us": 15, "p99_us": 15, "sync_full_s": 20}},
		{setting: "sync=off", check: map[string]float64{"sync_full_s": -1, "sync_incremental_s": -1}},
		{setting: "jain=1", check: map[string]float64{"jain": 1}},
		{setting: "p50_us", wantErr: "want metric=PCT"},
		{setting: "p42_us=5", wantErr: `unknown metric "p42_us"`},
		{setting: "p50_us=-3", wantErr: "want a percentage ≥ 0 or off"},
		{setting: "p50_us=fast", wantErr: "want a percentage ≥ 0 or off"},
	}
	for _, tt := range tests {
		t.Run(tt.setting, func(t *testing.T) {
			th := NewThresholds()
			err := th.Set(tt.setting)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.check {
				got, ok := th[name]
				if (want < 0 && ok) || (want >= 0 && got != want) {
					t.Errorf("%s = %v (set %v), want %v", name, got, ok, want)
				}
			}
			if DefaultThresholds["p50_us"] != 10 {
				t.Error("Set changed DefaultThresholds")
			}
		})
	}
}

// TestGateNoisyRunsAreInconclusive: two runs of six repetitions whose
// values spread ±40% and do not differ cannot rule out a 10% change, so
// the gate says INCONCLUSIVE and how many repetitions would decide, never
// PASS.
func TestGateNoisyRunsAreInconclusive(t *testing.T) {
	base := syntheticRun("base", pointRecords("iptables-nft", 1000, "last", 60, 140, 85, 115, 100, 72))
	new := syntheticRun("new", pointRecords("iptables-nft", 1000, "last", 72, 100, 140, 60, 115, 85))
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := NewThresholds()
	if err := th.Set("sync=off"); err != nil {
		t.Fatal(err)
	}
	v := Gate(res, GateOptions{Thresholds: th})
	if v.Outcome() != Inconclusive {
		t.Fatalf("verdict %q, want INCONCLUSIVE", v)
	}
	for _, u := range v.Undecided {
		if u.Needed <= 6 || !strings.Contains(u.String(), "repetitions per point would decide (have 6)") {
			t.Errorf("undecided %q: needed %d", u, u.Needed)
		}
	}
	if !strings.Contains(v.String(), "repetitions per point would decide") || !strings.HasPrefix(v.Power(), "power: a change must exceed about") {
		t.Errorf("verdict %q, power %q", v, v.Power())
	}
}
