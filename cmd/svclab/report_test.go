package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportWithComparison: report writes report.md, plots and, with
// --compare, one self-contained HTML page with the plots inline.
func TestReportWithComparison(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := exec.Command("cp", "-r", "../../sim/compare/testdata/ci1", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy test run: %v: %s", err, out)
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"report", dir, "--compare", "../../sim/compare/testdata/ci2.jsonl"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	page, err := os.ReadFile(filepath.Join(dir, "compare.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<svg") || strings.Contains(string(page), "<script src=") || strings.Contains(string(page), "<link ") {
		t.Fatal("compare.html is not a self-contained page with inline plots")
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Fatal(err)
	}
}
