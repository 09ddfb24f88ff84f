package main

import (
	"strings"
	"testing"
)

// TestReportOfAnEmptyDirectory (issue 10 points 4 and 13): exit 2, a clear
// message on stderr, nothing on stdout.
func TestReportOfAnEmptyDirectory(t *testing.T) {
	stdout, stderr, code := runCommand(t, "report", t.TempDir())
	if code != 2 || stdout != "" || !strings.Contains(stderr, "nothing to report: no results.jsonl and no summary.json") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
