package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestIssue26Point9ErrorsQuoteAShortExcerpt: an error about a file that
// is not what svclab expected (here a root-only password file, with a
// long line and control characters) quotes at most a short, escaped
// excerpt of it, whichever command read it.
func TestIssue26Point9ErrorsQuoteAShortExcerpt(t *testing.T) {
	line := "root:$6$saltsaltsaltsa$SECRETHASHroot0123456789:19000:0:99999:7:::\n"
	for _, secret := range map[string]string{
		"shadow": line + "daemon:*:SECRETdaemon:0:99999:7:::\n" + line,
		"long":   "bin:" + strings.Repeat("x", 10000) + "SECRETlong:\u202e:\n" + line + line,
	} {
		checkQuotesAnExcerpt(t, secret)
	}
}

// checkQuotesAnExcerpt runs the commands that read files on a copy of
// secret in each place they read.
func checkQuotesAnExcerpt(t *testing.T, secret string) {
	dir := t.TempDir()
	shadow := filepath.Join(dir, "shadow")
	if err := os.WriteFile(shadow, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"results.jsonl", "summary.json", "meta.json"} {
		if err := os.WriteFile(filepath.Join(run, name), []byte(secret), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sc := filepath.Join(dir, "sc.yaml")
	if err := os.WriteFile(sc, []byte("name: x\ncluster:\n  objects: shadow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"import", shadow},
		{"render", "--scenario", sc},
		{"render", "--scenario", shadow},
		{"trace", "--dump", shadow, "--dst", "10.0.0.1:80"},
		{"analyze", "--dump", shadow},
		{"report", run},
		{"compare", run, run},
		{"gate", run, run},
		{"export", "--format", "bench", run},
	} {
		t.Run(strings.Join(args[:1], " ")+" "+filepath.Base(args[len(args)-1]), func(t *testing.T) {
			_, stderr, code := runCommand(t, args...)
			if code == 0 {
				t.Fatalf("exit 0 for a password file")
			}
			if strings.Contains(stderr, "SECRET") || len(stderr) > 1024 {
				t.Errorf("stderr quotes the file (%d bytes):\n%.2000s", len(stderr), stderr)
			}
			for _, r := range stderr {
				if r != '\n' && !unicode.IsPrint(r) {
					t.Errorf("stderr holds the raw control character %U:\n%.2000q", r, stderr)
					break
				}
			}
		})
	}
}
