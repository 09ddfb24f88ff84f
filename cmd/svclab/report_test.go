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

// copyRun copies a run directory's files (no subdirectories) to dst.
func copyRun(t *testing.T, src, dst string) string {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestIssue26Point14ReportWritesNothingThroughSymlinks: a plots/ that is
// a symbolic link is refused (nothing written where it points), and a
// plot file or report.md that is a link is replaced, not written through.
func TestIssue26Point14ReportWritesNothingThroughSymlinks(t *testing.T) {
	tmp := t.TempDir()
	elsewhere := filepath.Join(tmp, "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := copyRun(t, testRun("run1"), filepath.Join(tmp, "linked"))
	if err := os.Symlink(elsewhere, filepath.Join(linked, "plots")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCommand(t, "report", linked)
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 || code == 0 {
		t.Errorf("plots/ a link: exit %d, %d files written where it points\n%s", code, len(entries), stderr)
	}
	victim := filepath.Join(tmp, "victim")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planted := copyRun(t, testRun("run1"), filepath.Join(tmp, "planted"))
	if err := os.MkdirAll(filepath.Join(planted, "plots"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"plots/latency-p50-last.svg", "plots/latency-p50-last.png", "report.md", ".report.md.tmp"} {
		if err := os.Symlink(victim, filepath.Join(planted, link)); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := runCommand(t, "report", planted); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep me\n" {
		t.Errorf("report wrote through a link into another file (%d bytes now)", len(data))
	}
}
