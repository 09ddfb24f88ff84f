package iptables

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

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
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n%s", name, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want ("-") or only in got ("+"), in order.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	in := func(set []string) map[string]int {
		m := map[string]int{}
		for _, l := range set {
			m[l]++
		}
		return m
	}
	wm, gm := in(wl), in(gl)
	var b strings.Builder
	for _, l := range wl {
		if gm[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range gl {
		if wm[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	if b.Len() == 0 {
		return "(same lines, different order)\n--- want\n" + want + "--- got\n" + got
	}
	return b.String()
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
