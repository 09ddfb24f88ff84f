package iptables

import (
	"errors"
	"slices"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
		err  error
	}{
		{"plain", "-A X -j Y", []string{"-A", "X", "-j", "Y"}, nil},
		{"runs of blanks and tabs", " -A  X\t-j   Y ", []string{"-A", "X", "-j", "Y"}, nil},
		{"quoted comment", `--comment "ns1/svc1:p80 cluster IP" -j X`, []string{"--comment", "ns1/svc1:p80 cluster IP", "-j", "X"}, nil},
		{"escapes inside quotes", `--comment "say \"hi\" \\ now"`, []string{"--comment", `say "hi" \ now`}, nil},
		{"empty quoted word", `--comment ""`, []string{"--comment", ""}, nil},
		{"quote opened inside a word", `a"b c"d`, []string{"ab c", "d"}, nil},
		{"backslash outside quotes is literal", `a\b`, []string{`a\b`}, nil},
		{"unterminated quote", `--comment "abc`, nil, ErrUnterminatedQuote},
		{"empty line", "", []string{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SplitWords(tc.line)
			if !errors.Is(err, tc.err) {
				t.Fatalf("SplitWords(%q) error = %v, want %v", tc.line, err, tc.err)
			}
			if err == nil && !slices.Equal(got, tc.want) {
				t.Errorf("SplitWords(%q) = %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

func TestQuoteWordRoundTrip(t *testing.T) {
	words := []string{"-A", "ns1/svc1:p80", "ns1/svc1:p80 cluster IP", "", `quote " and \ back`, "tab\there", `a\b`, "x\vy"}
	line := JoinWords(words)
	got, err := SplitWords(line)
	if err != nil {
		t.Fatalf("SplitWords(%q): %v", line, err)
	}
	if !slices.Equal(got, words) {
		t.Errorf("round trip of %q = %q", words, got)
	}
	if q := QuoteWord("ns1/svc1:p80"); q != "ns1/svc1:p80" {
		t.Errorf("QuoteWord quoted a word without spaces: %s", q)
	}
	if q := QuoteWord("ns1/svc1:p80 cluster IP"); q != `"ns1/svc1:p80 cluster IP"` {
		t.Errorf("QuoteWord = %s, want kube-proxy's quoting", q)
	}
}
