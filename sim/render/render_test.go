package render

import (
	"bytes"
	"errors"
	"testing"
)

func TestWriterCountsWhatItWrites(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Line("*nat")
	w.Line("-A ", "KUBE-SERVICES", " -j RETURN")
	w.CountRule()
	w.CountChain()
	stats, err := w.Flush()
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != "*nat\n-A KUBE-SERVICES -j RETURN\n" || stats.Lines != 2 || stats.Bytes != b.Len() || stats.Rules != 1 || stats.Chains != 1 {
		t.Fatalf("wrote %q, stats %+v", b.String(), stats)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterReportsTheFirstError(t *testing.T) {
	w := NewWriter(failing{})
	w.Line(string(make([]byte, 2<<20))) // larger than the buffer: reaches the writer
	w.Line("more")
	if _, err := w.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush error = %v, want disk full", err)
	}
}
