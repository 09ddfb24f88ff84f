package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestIssue26Point12GateRefusesWhatItCannotCompare: a NEW run that lacks
// a dataplane or a gated metric the baseline has fails the gate (exit 1,
// a MISSING line), one without meta is refused (exit 2), and impossible or
// duplicated records are refused at load (exit 2, file:line).
func TestIssue26Point12GateRefusesWhatItCannotCompare(t *testing.T) {
	tmp := t.TempDir()
	run1 := testRun("run1")
	meta := &results.Meta{Schema: results.SchemaVersion, Scenario: "quiet", CPU: "test"}
	quiet := writeRun(t, filepath.Join(tmp, "quiet"), quietRecords(1), meta)
	quietNoMeta := writeRun(t, filepath.Join(tmp, "quiet-no-meta"), quietRecords(1), nil)
	onlyIPTables := dropRecords(t, run1, filepath.Join(tmp, "only-iptables"), func(r results.Record) bool {
		return r.Type == results.TypePoint && r.Point.Dataplane == "nftables"
	})
	noP99, negative := quietRecords(1), quietRecords(1)
	for i := range noP99 {
		noP99[i].Point.P99us = 0
	}
	negative[1].Point.P50us = -17.3
	fourTimes := filepath.Join(tmp, "four-times")
	if err := os.MkdirAll(fourTimes, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(quiet, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fourTimes, results.ResultsFile), []byte(strings.Repeat(string(data), 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"new lacks a dataplane", []string{run1, onlyIPTables}, 1, "MISSING p50_us nftables/1/last: measured in base, not in new", ""},
		{"new lacks a gated metric", []string{quiet, writeRun(t, filepath.Join(tmp, "no-p99"), noP99, meta)}, 1, "MISSING p99_us iptables-nft/1000/last: measured in base, not in new", ""},
		{"new has no meta", []string{quiet, quietNoMeta}, 2, "", "the new run has no meta record"},
		{"negative latency", []string{quiet, writeRun(t, filepath.Join(tmp, "negative"), negative, meta)}, 2, "", "results.jsonl:2: point iptables-nft/1000/last repetition 2: p50_us -17.3"},
		{"records given four times", []string{quiet, fourTimes}, 2, "", "results.jsonl:7: point iptables-nft/1000/last repetition 1 again (first on line 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCommand(t, append([]string{"gate"}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stdout, tt.wantOut) || !strings.Contains(stderr, tt.wantErr) {
				t.Fatalf("exit %d, want %d with stdout %q and stderr %q\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, tt.wantOut, tt.wantErr, stdout, stderr)
			}
		})
	}
}

// dropRecords copies a run directory without the records drop selects.
func dropRecords(t *testing.T, src, dst string, drop func(results.Record) bool) string {
	t.Helper()
	records, _, err := results.ReadRecords(src)
	if err != nil {
		t.Fatal(err)
	}
	var kept []results.Record
	var meta *results.Meta
	for _, r := range records {
		if r.Type == results.TypeMeta {
			meta = r.Meta
		}
		if !drop(r) {
			kept = append(kept, r)
		}
	}
	return writeRun(t, dst, kept, meta)
}
