package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/golden"
)

// planCalibration is a recorded sweep (sweep-quick, 2026-11-29) that
// sim/cost's tests use too.
const planCalibration = "../../sim/cost/testdata/sweep1"

// TestPlanGolden pins plan's text output for a recorded calibration.
func TestPlanGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"plan-all.golden", []string{"--services", "15000", "--endpoints-per-service", "2", "--calibration", planCalibration}},
		{"plan-legacy-last.golden", []string{"--services", "40000", "--endpoints-per-service", "1", "--dataplane", "iptables-legacy",
			"--position", "last", "--new-conn-per-s", "250", "--max-n", "10000", "--calibration", planCalibration}},
		{"plan-upper-half.golden", []string{"--services", "20000", "--endpoints-per-service", "0", "--fit", "upper-half",
			"--position", "first", "--calibration", planCalibration}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := dispatch(append([]string{"plan"}, tt.args...), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			checkPlanGolden(t, filepath.Join("testdata", tt.golden), stdout.String())
		})
	}
}

func checkPlanGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// TestPlanJSON: --json prints the query, the calibration source and one
// prediction per dataplane with intervals.
func TestPlanJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"plan", "--services", "5000", "--endpoints-per-service", "2", "--dataplane", "iptables-nft", "--json", "--calibration", planCalibration}
	if code := dispatch(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out cost.PlanJSON
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if out.Query.Services != 5000 || out.Query.Position != "uniform" || out.Calibration.Run != "svl-26db" || len(out.Predictions) != 1 {
		t.Fatalf("query %+v, calibration %+v, %d predictions", out.Query, out.Calibration, len(out.Predictions))
	}
	p := out.Predictions[0]
	if p.Dataplane != "iptables-nft" || p.Evaluations != 2500.5 || p.Ruleset.Rules != 9+5000*8 || p.CPUCores == nil ||
		!(p.P50us.Added.Lo < p.P50us.Added.Value && p.P50us.Added.Value < p.P50us.Added.Hi) {
		t.Errorf("prediction %+v", p)
	}
}

// TestPlanDefaultCalibration: without --calibration plan uses the embedded
// sweep and says so.
func TestPlanDefaultCalibration(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"plan", "--services", "100", "--endpoints-per-service", "2"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "calibration: embedded default") {
		t.Errorf("output does not name the embedded calibration:\n%s", stdout.String())
	}
}

// TestPlanBadInput: every kind of bad input is a usage error (exit 2)
// that names the problem.
func TestPlanBadInput(t *testing.T) {
	ok := []string{"--services", "100", "--endpoints-per-service", "2"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no services", []string{"--endpoints-per-service", "2"}, "give --services"},
		{"no endpoints", []string{"--services", "100"}, "give --endpoints-per-service"},
		{"zero services", []string{"--services", "0", "--endpoints-per-service", "2"}, "services 0"},
		{"too many services", []string{"--services", "2000000", "--endpoints-per-service", "2"}, "services 2000000"},
		{"services not a number", []string{"--services", "many", "--endpoints-per-service", "2"}, "invalid value"},
		{"negative rate", append(ok, "--new-conn-per-s", "-1"), "new connections per second -1"},
		{"unknown dataplane", append(ok, "--dataplane", "ebpf"), `dataplane "ebpf"`},
		{"uncalibrated dataplane", append(ok, "--dataplane", "ipvs", "--calibration", planCalibration), "not in the calibration"},
		{"unknown position", append(ok, "--position", "centre"), `position "centre"`},
		{"unknown churn kind", append(ok, "--churn-kind", "pods"), `churn kind "pods": want endpoints or services`},
		{"unknown fit", append(ok, "--fit", "best"), `range "best"`},
		{"negative max-n", append(ok, "--max-n", "-3"), "MaxN -3"},
		{"missing calibration", append(ok, "--calibration", "/nonexistent/run"), "sweep run directory"},
		{"stray argument", append(ok, "extra"), `unexpected argument "extra"`},
		{"unknown flag", append(ok, "--endpoints", "2"), "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(append([]string{"plan"}, tt.args...), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.want)
			}
		})
	}
}
