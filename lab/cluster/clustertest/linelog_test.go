package clustertest

import (
	"bytes"
	"sync"
	"testing"
)

// TestLineLogKeepsLinesWhole: two streams written in chunks that cut
// lines reach the shared log as whole lines, the unended tail at flush.
func TestLineLogKeepsLinesWhole(t *testing.T) {
	var mu sync.Mutex
	var log bytes.Buffer
	out, errs := &lineLog{mu: &mu, w: &log}, &lineLog{mu: &mu, w: &log}
	for _, step := range []struct {
		l     *lineLog
		chunk string
	}{
		{out, "QUJD"}, {errs, "progress 1\npro"}, {out, "REVG\nR0hJ"}, {errs, "gress 2\n"}, {out, "Sk"},
	} {
		if n, err := step.l.Write([]byte(step.chunk)); n != len(step.chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", step.chunk, n, err)
		}
	}
	out.flush()
	errs.flush()
	const want = "progress 1\nQUJDREVG\nprogress 2\nR0hJSk"
	if log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}
