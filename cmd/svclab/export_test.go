package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestExportCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run1.txt")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		results  int // benchmark lines read back by benchfmt from stdout (or --out)
	}{
		{name: "sweep to stdout", args: []string{"--format", "bench", testRun("run1")}, results: 20},
		{name: "results.jsonl", args: []string{testRun("run2.jsonl")}, results: 20},
		{name: "fairness to a file", args: []string{"--format=bench", testRun("split2"), "--out", out}, results: 3},
		{name: "other format", args: []string{"--format", "csv", testRun("run1")}, wantCode: 2, wantErr: `invalid value "csv" for flag -format: want bench`},
		{name: "missing run", args: []string{testRun("nope")}, wantCode: 2, wantErr: "svclab export: run ../../sim/compare/testdata/nope"},
		{name: "no run", args: []string{"--format", "bench"}, wantCode: 2, wantErr: "give one run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCommand(t, append([]string{"export"}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Fatalf("exit %d, want %d; stderr %q, want %q", code, tt.wantCode, stderr, tt.wantErr)
			}
			if tt.wantCode != 0 {
				return
			}
			text := []byte(stdout)
			if strings.Contains(strings.Join(tt.args, " "), "--out") {
				var err error
				if text, err = os.ReadFile(out); err != nil {
					t.Fatal(err)
				}
			}
			if n := countBenchResults(t, text); n != tt.results {
				t.Errorf("benchfmt read %d results, want %d:\n%s", n, tt.results, text)
			}
		})
	}
}

// countBenchResults reads text with benchstat's parser, failing on any
// syntax error.
func countBenchResults(t *testing.T, text []byte) int {
	t.Helper()
	r := benchfmt.NewReader(bytes.NewReader(text), "export")
	n := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			n++
		}
	}
	return n
}
