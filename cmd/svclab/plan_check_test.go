package main

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/cost"
)

// Two recorded holdout runs of one recipe (docs/planning.md).
var recordedHoldouts = []string{"../../results/plan-holdout/native-j", "../../results/plan-holdout/native-k"}

// TestPlanCheckAcrossRuns: several runs are each checked as one would be,
// and the figures across them count what the runs' rows say.
func TestPlanCheckAcrossRuns(t *testing.T) {
	var one bytes.Buffer
	if code := dispatch([]string{"plan", "check", recordedHoldouts[0], "--max-n", "5000", "--format", "json"}, &one, &bytes.Buffer{}); code != 1 {
		t.Fatalf("one run: exit %d, want 1 (native-j misses figures)", code)
	}
	var single holdoutJSON
	if err := json.Unmarshal(one.Bytes(), &single); err != nil || len(single.Rows) == 0 || single.Dir != "" {
		t.Fatalf("one run's JSON (%v): %s", err, one.String())
	}
	var stdout, stderr bytes.Buffer
	args := append([]string{"plan", "check"}, append(recordedHoldouts, "--max-n", "5000", "--format", "json")...)
	if code := dispatch(args, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr.String())
	}
	var out struct {
		Runs   []holdoutJSON        `json:"runs"`
		Across []cost.HoldoutAcross `json:"across"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Runs) != 2 {
		t.Fatalf("JSON (%v): %s", err, stdout.String())
	}
	if len(out.Runs[0].Rows) != len(single.Rows) || out.Runs[1].Dir != recordedHoldouts[1] {
		t.Errorf("first run has %d rows alone and %d beside another; second run's dir %q", len(single.Rows), len(out.Runs[0].Rows), out.Runs[1].Dir)
	}
	var rows, covered, acrossRuns, acrossCovered int
	for _, r := range out.Runs {
		for _, row := range r.Rows {
			rows++
			if row.Covered {
				covered++
			}
		}
	}
	for _, a := range out.Across {
		acrossRuns, acrossCovered = acrossRuns+a.Runs, acrossCovered+a.Covered
	}
	if acrossRuns != rows || acrossCovered != covered {
		t.Errorf("across: %d figures-runs, %d covered; the runs: %d rows, %d covered", acrossRuns, acrossCovered, rows, covered)
	}
	var text bytes.Buffer
	dispatch(append([]string{"plan", "check"}, append(recordedHoldouts, "--max-n", "5000")...), &text, &bytes.Buffer{})
	for _, want := range []string{"## ../../results/plan-holdout/native-j\n", "## Across the 2 runs\n", "| native-j | native-k |", "over 2 runs: "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

// TestPlanCheckWithAnotherCalibration: --calibration takes the model from
// another run and checks this run's measurements against it: the rows
// measure the same points as the run's own check, the predictions are the
// other run's (native-j's, not native-k's), and the run as its own
// --calibration is the plain check.
func TestPlanCheckWithAnotherCalibration(t *testing.T) {
	check := func(extra ...string) holdoutJSON {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"plan", "check", recordedHoldouts[1], "--max-n", "5000", "--format", "json"}, extra...)
		dispatch(args, &stdout, &stderr)
		var out holdoutJSON
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Rows) == 0 {
			t.Fatalf("%v (%v): %s %s", args, err, stdout.String(), stderr.String())
		}
		return out
	}
	own, self, other := check(), check("--calibration", recordedHoldouts[1]), check("--calibration", recordedHoldouts[0])
	if other.Calibration.Name != recordedHoldouts[0] || own.Calibration.Name != recordedHoldouts[1] {
		t.Errorf("calibrations %q and %q, want native-j's and native-k's own", other.Calibration.Name, own.Calibration.Name)
	}
	if len(other.Rows) != len(own.Rows) || len(self.Rows) != len(own.Rows) {
		t.Fatalf("%d rows from native-j's calibration, %d from native-k's own, %d with itself named", len(other.Rows), len(own.Rows), len(self.Rows))
	}
	differ := 0
	for i, row := range other.Rows {
		if row.Figure != own.Rows[i].Figure || row.Measured != own.Rows[i].Measured {
			t.Errorf("row %d: %s measured %v, native-k's own check: %s measured %v", i, row.Figure, row.Measured, own.Rows[i].Figure, own.Rows[i].Measured)
		}
		if row.Predicted != own.Rows[i].Predicted {
			differ++
		}
		if !reflect.DeepEqual(self.Rows[i], own.Rows[i]) {
			t.Errorf("row %d with the run named as its calibration %+v, without %+v", i, self.Rows[i], own.Rows[i])
		}
	}
	if differ == 0 {
		t.Error("native-j's calibration predicts every figure as native-k's own does: the calibration was not taken from it")
	}
	if code := dispatch([]string{"plan", "check", recordedHoldouts[1], "--max-n", "5000", "--calibration", "no-such-dir"}, &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Errorf("a missing calibration: exit %d, want 2", code)
	}
}

// TestPlanCheckWithScenario: with the scenario a mix-shaped sweep was made
// from, plan check predicts its points for the services they loaded (more
// KUBE-SERVICES rules to walk than N one-port services); it needs a
// calibration, and refuses a scenario that is not the run's.
func TestPlanCheckWithScenario(t *testing.T) {
	const dir = "../../results/plan-mix-check/"
	base := []string{"plan", "check", dir + "measured", "--max-n", "5000", "--calibration", dir + "calibration", "--format", "json"}
	check := func(extra ...string) holdoutJSON {
		t.Helper()
		var stdout, stderr bytes.Buffer
		dispatch(append(append([]string(nil), base...), extra...), &stdout, &stderr)
		var out holdoutJSON
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Rows) == 0 {
			t.Fatalf("%v (%v): %s %s", extra, err, stdout.String(), stderr.String())
		}
		return out
	}
	uniformP50 := func(out holdoutJSON) float64 {
		for _, r := range out.Rows {
			if r.Dataplane == "iptables-legacy" && r.Figure == "p50 µs (uniform)" {
				return r.Predicted.Value
			}
		}
		t.Fatal("no iptables-legacy uniform p50 row")
		return 0
	}
	onePort, mix := check(), check("--scenario", dir+"cluster-500-x20.yaml")
	if uniformP50(mix) <= uniformP50(onePort) {
		t.Errorf("iptables-legacy uniform p50 predicted %v for the mix, %v for 9,540 one-port services: want the mix's more rules walked", uniformP50(mix), uniformP50(onePort))
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"without a calibration", []string{"plan", "check", dir + "measured", "--max-n", "5000", "--scenario", dir + "cluster-500-x20.yaml"}, "--scenario needs --calibration"},
		{"another scenario", append(append([]string(nil), base...), "--scenario", "../../results/plan-calibrate-check/measure-50000.yaml"), "give that file, unchanged"},
		{"a --dataplane the run was not made with", append(append([]string(nil), base...), "--scenario", dir+"cluster-500-x20.yaml", "--dataplane", "iptables-legacy"), "give that file, unchanged"},
		{"a --dataplane without a scenario", append(append([]string(nil), base...), "--dataplane", "iptables-legacy"), "--dataplane needs --scenario"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		if code := dispatch(tt.args, &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", tt.name, code, stderr.String(), tt.want)
		}
	}
}

// TestPlanCheckWithTheRunsDataplaneOverride: a mix run made with svclab
// run --dataplane recorded the scenario's hash with that override; plan
// check takes the same --dataplane and checks it (its rows are the one
// dataplane's).
func TestPlanCheckWithTheRunsDataplaneOverride(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"plan", "check", "../../results/plan-families/partial-family/B1", "--max-n", "5000", "--calibration", "../../results/plan-recent/calibration",
		"--scenario", "../../results/plan-recent/mix-iptables.yaml", "--dataplane", "iptables-legacy", "--format", "json"}
	if code := dispatch(args, &stdout, &stderr); code > 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out holdoutJSON
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Rows) == 0 {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	for _, r := range out.Rows {
		if r.Dataplane != "iptables-legacy" {
			t.Errorf("a row of %s, want iptables-legacy's only", r.Dataplane)
		}
	}
}

// TestPlanCheckFrom: with a calibration that reaches past a run's points
// (the embedded default's recorded run, to 100,000 Services), --from
// checks the run's points of at least that many services; a run that
// calibrates itself holds out only its points above --max-n.
func TestPlanCheckFrom(t *testing.T) {
	const mix = "../../results/plan-families/mix-iptables-partial"
	args := []string{"plan", "check", mix, "--calibration", "../../results/sweep-full-default", "--max-n", "100000", "--scenario", "../../results/plan-recent/mix-iptables.yaml", "--format", "json"}
	for _, tc := range []struct {
		from string
		rows bool
	}{{"5000", true}, {"10000", false}} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(append(append([]string(nil), args...), "--from", tc.from), &stdout, &stderr); code > 1 {
			t.Fatalf("--from %s: exit %d: %s", tc.from, code, stderr.String())
		}
		var out holdoutJSON
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("--from %s: %v: %s", tc.from, err, stdout.String())
		}
		if (len(out.Rows) > 0) != tc.rows {
			t.Errorf("--from %s: %d rows, want rows %v (the mix's point is 9,540 Services)", tc.from, len(out.Rows), tc.rows)
		}
		for _, r := range out.Rows {
			if r.Services < 5000 {
				t.Errorf("--from %s: a row at %d services", tc.from, r.Services)
			}
		}
	}
	var stderr bytes.Buffer
	self := []string{"plan", "check", mix, "--max-n", "5000", "--from", "100"}
	if code := dispatch(self, &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), "only its points above") {
		t.Errorf("--from below a run's own calibration: exit %d, %q; want 2", code, stderr.String())
	}
}

// TestPlanCheckListsThePredictionsWarnings: under the table come the
// warnings svclab plan would print beside the same predictions, once each:
// the embedded default did not time the restore's user CPU, so it cannot
// price the mix's partial payload apart from its table; in JSON the
// iptables-legacy rows carry it and the iptables-nft rows do not.
func TestPlanCheckListsThePredictionsWarnings(t *testing.T) {
	const unpriced = "iptables-legacy sync_incremental_s: its partial payload has 23000 rules"
	args := []string{"plan", "check", "../../results/plan-families/mix-iptables-partial", "--calibration", "../../results/sweep-full-default",
		"--max-n", "100000", "--from", "5000", "--scenario", "../../results/plan-recent/mix-iptables.yaml"}
	var text bytes.Buffer
	if code := dispatch(args, &text, &bytes.Buffer{}); code > 1 {
		t.Fatalf("exit %d: %s", code, text.String())
	}
	_, list, ok := strings.Cut(text.String(), "\nthe predictions' warnings:\n")
	if !ok || strings.Count(list, unpriced) != 1 {
		t.Errorf("want the unpriced partial payload listed once under the predictions' warnings:\n%s", text.String())
	}
	var stdout bytes.Buffer
	if code := dispatch(append(args, "--format", "json"), &stdout, &bytes.Buffer{}); code > 1 {
		t.Fatalf("JSON: exit %d: %s", code, stdout.String())
	}
	var out holdoutJSON
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Rows {
		warned := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, unpriced) })
		if warned != (r.Dataplane == "iptables-legacy") {
			t.Errorf("%s %s: warned %v, want it on iptables-legacy's rows alone: %q", r.Dataplane, r.Figure, warned, r.Warnings)
		}
	}
}

// TestPlanCheckWalksFromRun: --walks-from-run prices the calibration with
// the chain-list walk the measured run timed itself, as
// results/plan-iptables-nft-sync did by hand (COMMAND 8: the walk swapped
// into a copy of the calibration with jq), which gave 82.3 s for the full
// sync of 20,000 Services where the calibration's own walk gives 96.4; it
// needs --calibration.
func TestPlanCheckWalksFromRun(t *testing.T) {
	const dir = "../../results/plan-iptables-nft-sync/"
	check := func(extra ...string) holdoutJSON {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"plan", "check", dir + "sync-check-touched", "--calibration", dir + "calibration-touched", "--max-n", "5000", "--format", "json"}, extra...)
		dispatch(args, &stdout, &stderr)
		var out holdoutJSON
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Rows) == 0 {
			t.Fatalf("%v (%v): %s %s", args, err, stdout.String(), stderr.String())
		}
		return out
	}
	fullSync := func(out holdoutJSON) cost.HoldoutRow {
		t.Helper()
		for _, r := range out.Rows {
			if r.Services == 20000 && r.Figure == "full sync s" {
				return r
			}
		}
		t.Fatalf("no full sync at 20,000 in %+v", out.Rows)
		return cost.HoldoutRow{}
	}
	own, swapped := check(), check("--walks-from-run")
	if len(own.WalksFromRun) != 0 || !slices.Equal(swapped.WalksFromRun, []string{"chain-list walk"}) {
		t.Errorf("walks from the run %q without the flag, %q with it; want none, then the chain-list walk", own.WalksFromRun, swapped.WalksFromRun)
	}
	a, b := fullSync(own), fullSync(swapped)
	if math.Abs(a.Predicted.Value-96.4) > 0.05 || math.Abs(b.Predicted.Value-82.3) > 0.05 || a.Measured != b.Measured {
		t.Errorf("full sync of 20,000 predicted %v with the calibration's walk and %v with the run's (want 96.4 and 82.3), measured %v and %v",
			a.Predicted.Value, b.Predicted.Value, a.Measured, b.Measured)
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"plan", "check", dir + "sync-check-touched", "--max-n", "5000", "--walks-from-run"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "needs --calibration") {
		t.Errorf("--walks-from-run without --calibration: exit %d (want 2): %s", code, stderr.String())
	}
	stdout.Reset()
	dispatch([]string{"plan", "check", dir + "sync-check-touched", "--calibration", dir + "calibration-touched", "--max-n", "5000", "--walks-from-run"}, &stdout, &stderr)
	if !strings.Contains(stdout.String(), "priced with the measured run's own chain-list walk (--walks-from-run)") {
		t.Errorf("the text does not say whose walk priced it:\n%s", stdout.String())
	}
}
