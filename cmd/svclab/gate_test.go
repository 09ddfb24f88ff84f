package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// writeRun writes records (and meta.json) as a run directory under dir.
func writeRun(t *testing.T, dir string, records []results.Record, meta *results.Meta) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []byte
	for _, r := range records {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, results.ResultsFile), lines, 0o644); err != nil {
		t.Fatal(err)
	}
	if meta != nil {
		if err := results.WriteJSON(dir, results.MetaFile, meta); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// rewrittenRun copies a run directory's records through edit.
func rewrittenRun(t *testing.T, src, dst string, edit func(*results.Record)) string {
	t.Helper()
	records, _, err := results.ReadRecords(src)
	if err != nil {
		t.Fatal(err)
	}
	var meta *results.Meta
	for i := range records {
		if records[i].Type == results.TypeMeta {
			meta = records[i].Meta
		}
		edit(&records[i])
	}
	return writeRun(t, dst, records, meta)
}

// slowerLatencies multiplies every repetition's latencies by 1.3 and drops
// its histogram.
func slowerLatencies(r *results.Record) {
	if r.Type != results.TypePoint {
		return
	}
	p := *r.Point
	p.P50us, p.P90us, p.P99us, p.P999us, p.MeanUs = 1.3*p.P50us, 1.3*p.P90us, 1.3*p.P99us, 1.3*p.P999us, 1.3*p.MeanUs
	p.Histogram = nil
	r.Point = &p
}

// quietRecords is a sweep with six repetitions varying by 1% steps, with
// latencies multiplied by factor.
func quietRecords(factor float64) []results.Record {
	var out []results.Record
	for rep := range 6 {
		f := factor * (1 + 0.01*float64(rep))
		p := &results.Point{Dataplane: "iptables-nft", Services: 1000, Position: "last", Repetition: rep + 1,
			P50us: 50 * f, P90us: 80 * f, P99us: 200 * f, CPUusPerConn: 120, ConnPerSec: 9000}
		out = append(out, results.Record{Schema: results.SchemaVersion, Type: results.TypePoint, Point: p})
	}
	return out
}

func TestGateCommand(t *testing.T) {
	tmp := t.TempDir()
	run1, ci1, ci2 := testRun("run1"), testRun("ci1"), testRun("ci2.jsonl")
	slower := rewrittenRun(t, run1, filepath.Join(tmp, "slower"), slowerLatencies)
	ciSlower := rewrittenRun(t, ci1, filepath.Join(tmp, "ci-slower"), slowerLatencies)
	quietMeta := &results.Meta{Schema: results.SchemaVersion, Scenario: "quiet", CPU: "test"}
	quiet := writeRun(t, filepath.Join(tmp, "quiet"), quietRecords(1), quietMeta)
	quietSlower := writeRun(t, filepath.Join(tmp, "quiet-slower"), quietRecords(1.3), quietMeta)
	newer := rewrittenRun(t, run1, filepath.Join(tmp, "newer"), func(r *results.Record) { r.Schema = 2 })
	olderMeta := writeRun(t, filepath.Join(tmp, "older-meta"), quietRecords(1), &results.Meta{Schema: 0})
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{name: "ci-smoke compared with itself: too noisy to pass", args: []string{ci1, ci1}, wantCode: 3,
			wantOut: []string{"INCONCLUSIVE p99_us nftables (4 points): +0.0% [", "repetitions per point would decide (have 6)",
				"power: a change must exceed about", "INCONCLUSIVE: no regression shown, but"}},
		{name: "second ci-smoke run", args: []string{ci1, ci2}, wantCode: 3, wantOut: []string{"INCONCLUSIVE:"}},
		{name: "second ci-smoke run, per point, no correction", args: []string{ci2, ci1, "--correction", "none", "--scope", "points"}, wantCode: 1,
			wantOut: []string{"REGRESSION p99_us nftables/1000/last: +51.1% (p=0.041, threshold 10%)"}},
		{name: "ci-smoke, latencies 30% higher", args: []string{ci1, ciSlower}, wantCode: 1,
			wantOut: []string{"REGRESSION p50_us iptables-nft (4 points): +30.0% (p=0.000, q=0.000, threshold 10%)",
				"REGRESSION: 4 regressions in 2 metrics (p50_us, p90_us) among 14 gated comparisons"}},
		{name: "ci-smoke, latencies 30% higher, per point", args: []string{ci1, ciSlower, "--scope=points"}, wantCode: 1,
			wantOut: []string{"REGRESSION p50_us iptables-nft/1000/last: +30.0% (p=0.002, q=0.029, threshold 10%)",
				"REGRESSION: 3 regressions in 1 metric (p50_us) among 52 gated comparisons"}},
		{name: "five repetitions, latencies 30% higher, per point, no correction", args: []string{run1, slower, "--correction=none", "--scope=points"}, wantCode: 1,
			wantOut: []string{"REGRESSION p50_us nftables/20000/last: +30.0% (p=0.008, threshold 10%)",
				"REGRESSION: 3 regressions in 1 metric (p50_us) among 24 gated comparisons"}},
		{name: "quiet run, latencies 30% higher", args: []string{quiet, quietSlower}, wantCode: 1,
			wantOut: []string{"REGRESSION p50_us iptables-nft (1 point): +30.0% (p=0.002, q=0.004, threshold 10%)",
				"REGRESSION p90_us iptables-nft (1 point)", "REGRESSION p99_us iptables-nft (1 point)",
				"REGRESSION: 3 regressions in 3 metrics (p50_us, p90_us, p99_us) among 5 gated comparisons"}},
		{name: "quiet run compared with itself", args: []string{quiet, quiet}, wantOut: []string{"PASS: every change among 5 gated comparisons is known to be within its threshold"}},
		{name: "thresholds raised", args: []string{quiet, quietSlower, "--threshold", "latency=40"}, wantOut: []string{"PASS"}},
		{name: "threshold list", args: []string{quiet, quietSlower, "--threshold", "p50_us=off,p90_us=off"}, wantCode: 1,
			wantOut: []string{"REGRESSION: 1 regression in 1 metric (p99_us)"}},
		{name: "nftables base, iptables-nft new", args: []string{run1, testRun("run2.jsonl"), "--base-dataplane", "nftables", "--new-dataplane", "iptables-nft", "--scope", "points"},
			wantCode: 1, wantOut: []string{"REGRESSION p50_us nftables→iptables-nft/20000/last: +2270.9% (p=0.008, q=0.016, threshold 10%)",
				"REGRESSION: 5 regressions in 5 metrics (p50_us, p90_us, p99_us, cpu_us_per_conn, conn_per_s)"}},
		{name: "verbose", args: []string{quiet, quiet, "-v"}, wantOut: []string{"metric", "PASS"}},
		{name: "bad scope", args: []string{run1, run1, "--scope", "all"}, wantCode: 2, wantErr: `scope "all"`},
		{name: "missing directory", args: []string{run1, filepath.Join(tmp, "nope")}, wantCode: 2, wantErr: "svclab gate: new: run " + filepath.Join(tmp, "nope")},
		{name: "newer schema", args: []string{newer, run1}, wantCode: 2, wantErr: "result schema version 2 is newer than this svclab reads (1)"},
		{name: "older meta.json", args: []string{quiet, olderMeta}, wantCode: 2, wantErr: "result schema version 0 is not supported"},
		{name: "no common point", args: []string{run1, quiet}, wantCode: 2, wantErr: "no point is measured in both runs"},
		{name: "fairness runs cannot fail", args: []string{testRun("split2"), testRun("split2")}, wantCode: 2,
			wantErr: "the gate cannot detect a regression: with n=1+1 samples per comparison"},
		{name: "bad threshold", args: []string{run1, run1, "--threshold", "p42=3"}, wantCode: 2, wantErr: `unknown metric "p42"`},
		{name: "bad correction", args: []string{run1, run1, "--correction", "holm"}, wantCode: 2, wantErr: `correction "holm"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCommand(t, append([]string{"gate"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, stderr)
			}
		})
	}
}
