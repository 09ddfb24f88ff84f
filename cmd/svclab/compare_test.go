package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compareTestdata is sim/compare's test data: two real five-repetition
// sweeps of iptables-nft and nftables up to 20,000 services (run1/,
// run2.jsonl), two real runs of ci-smoke (ci1/, ci2.jsonl) and a fairness
// run (split2/).
const compareTestdata = "../../sim/compare/testdata"

func testRun(name string) string { return filepath.Join(compareTestdata, name) }

// runCommand runs svclab with args in process and returns stdout, stderr
// and the exit code.
func runCommand(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

func TestCompareCommand(t *testing.T) {
	htmlPath := filepath.Join(t.TempDir(), "compare.html")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  string
	}{
		{name: "text", args: []string{"compare", testRun("run1"), testRun("run2.jsonl")},
			wantOut: []string{"matching: points matched on dataplane, services and position",
				"p50_us (µs)             iptables-nft/1/last      14.1 ± ∞    13.4 ± ∞     -5.21%   p=0.008 n=5  better",
				"p50_us (µs)             iptables-nft/20000/last  380 ± ∞     296 ± ∞      ~        p=0.151 n=5\n",
				"warnings:"}},
		{name: "across dataplanes", args: []string{"compare", testRun("run1"), testRun("run2.jsonl"),
			"--base-dataplane", "nftables", "--new-dataplane", "iptables-nft"},
			wantOut: []string{"base dataplane nftables compared with new dataplane iptables-nft",
				"nftables→iptables-nft/20000/last  12.5 ± ∞    296 ± ∞      +2270.93%  p=0.008 n=5  worse"}},
		{name: "csv", args: []string{"compare", "--format", "csv", testRun("run1"), testRun("run2.jsonl")},
			wantOut: []string{"metric,unit,direction,base_point,new_point,", "p50_us,µs,higher is worse,iptables-nft/1/last,iptables-nft/1/last,14.119,"}},
		{name: "json", args: []string{"compare", testRun("run1"), testRun("run2.jsonl"), "--format=json"},
			wantOut: []string{`"matching": "points matched on dataplane, services and position"`, `"change": "better"`}},
		{name: "html", args: []string{"compare", testRun("split2"), testRun("split2"), "--html", htmlPath},
			wantOut: []string{"chi2_p               nftables/demo/web:http"}, wantErr: "html: " + htmlPath},
		{name: "missing run", args: []string{"compare", testRun("nope"), testRun("run1")}, wantCode: 2,
			wantErr: "svclab compare: base: run ../../sim/compare/testdata/nope:"},
		{name: "no common point", args: []string{"compare", testRun("run1"), testRun("split2")}, wantCode: 2,
			wantErr: "no point is measured in both runs (base: sweep run with 4 points on iptables-nft, nftables; new: fairness run with 3 points"},
		{name: "bad format", args: []string{"compare", "--format", "xml", testRun("run1"), testRun("run1")}, wantCode: 2, wantErr: `invalid value "xml" for flag -format: want text, markdown, json or csv`},
		{name: "one run", args: []string{"compare", testRun("run1")}, wantCode: 2, wantErr: "give two runs"},
		{name: "bad alpha", args: []string{"compare", "--alpha", "5", testRun("run1"), testRun("run1")}, wantCode: 2, wantErr: "--alpha 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCommand(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, want := range tt.wantOut {
				if !strings.Contains(squeeze(stdout), squeeze(want)) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantErr, stderr)
			}
		})
	}
	page, err := os.ReadFile(htmlPath)
	if err != nil || !strings.Contains(string(page), "<svg") || !strings.HasPrefix(string(page), "<!DOCTYPE html>") {
		t.Errorf("HTML report %s: %v, %d bytes", htmlPath, err, len(page))
	}
}

// squeeze collapses runs of spaces, so that checks do not depend on column
// widths.
func squeeze(s string) string {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	return strings.Join(lines, "\n")
}
