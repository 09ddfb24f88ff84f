package iptables

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustParse(t *testing.T, text string) *Dump {
	t.Helper()
	d, err := ParseString(text)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d
}

// checkGolden compares got with testdata/golden/name, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// withoutComments drops "#" lines, as the parser does.
func withoutComments(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "#") {
			b.WriteString(l)
		}
	}
	return b.String()
}
