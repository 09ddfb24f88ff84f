package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestGateRefusesOtherScenarioOrCPU (issue 10 point 15): against a
// baseline, a run of another scenario or from another CPU model is refused
// with exit 2 and nothing on stdout, unless --allow-env-mismatch.
func TestGateRefusesOtherScenarioOrCPU(t *testing.T) {
	tmp := t.TempDir()
	base := testRun("ci1")
	editMeta := func(name string, edit func(*results.Meta)) string {
		dir := rewrittenRun(t, base, filepath.Join(tmp, name), func(r *results.Record) {
			if r.Type == results.TypeMeta {
				m := *r.Meta
				edit(&m)
				r.Meta = &m
			}
		})
		records, _, err := results.ReadRecords(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records {
			if r.Type == results.TypeMeta {
				if err := results.WriteJSON(dir, results.MetaFile, r.Meta); err != nil {
					t.Fatal(err)
				}
			}
		}
		return dir
	}
	otherCPU := editMeta("other-cpu", func(m *results.Meta) { m.CPU = "Some Other CPU @ 1.00GHz" })
	otherScenario := editMeta("other-scenario", func(m *results.Meta) { m.ScenarioHash = strings.Repeat("0", 64) })
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"other CPU", []string{base, otherCPU}, 2, `CPU "`},
		{"other scenario file", []string{base, otherScenario}, 2, "scenario ci-smoke (hash"},
		{"other CPU allowed (then judged: too noisy to pass)", []string{base, otherCPU, "--allow-env-mismatch"}, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCommand(t, append([]string{"gate"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			if tt.wantCode == 2 && (stdout != "" || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "--allow-env-mismatch") || !strings.Contains(stderr, "make baseline")) {
				t.Fatalf("stdout %q, stderr %q: want nothing on stdout and the difference, the flag and make baseline on stderr", stdout, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(otherCPU, results.MetaFile)); err != nil {
		t.Fatal(err)
	}
}
