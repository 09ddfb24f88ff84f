package iptables

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics on any input, and that a dump it
// accepts prints, parses back and normalises to the same thing. The seed
// corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add("*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -j ACCEPT\nCOMMIT\n")
	f.Add("*filter\n:INPUT ACCEPT [1:2]\n[3:4] -A INPUT -m comment --comment \"a \\\" b\" -j DROP\nCOMMIT\n")
	f.Fuzz(func(t *testing.T, data string) {
		d, err := ParseString(data)
		if err != nil {
			return
		}
		_ = CheckJumps(d)
		first := d.String()
		d2, err := ParseString(first)
		if err != nil {
			t.Fatalf("printed dump does not parse: %v\n%s", err, first)
		}
		if second := d2.String(); second != first {
			t.Fatalf("print is not stable:\n%s\n---\n%s", first, second)
		}
		if NormalizeDump(d) != NormalizeDump(d2) {
			t.Fatalf("normal form changed after print and parse")
		}
		if _, err := Canonical(first); err != nil {
			t.Fatalf("Canonical: %v", err)
		}
	})
}

// FuzzParseRule checks the rule tokenizer and parser: no panics, String()
// parses back to the same rule, and Normalize is idempotent (its output
// parses and normalises to itself). The seed corpus is in
// testdata/fuzz/FuzzParseRule.
func FuzzParseRule(f *testing.F) {
	f.Add(`-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O`)
	f.Add(`[1:2] -A X -m recent --rcheck --seconds 10800 --reap --name L --mask 255.255.255.255 --rsource -j Y`)
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseRule(line)
		if err != nil {
			return
		}
		norm := Normalize(r)
		printed := r.String()
		r2, err := ParseRule(printed)
		if err != nil {
			t.Fatalf("String() %q does not parse: %v", printed, err)
		}
		if r2.String() != printed || Normalize(r2) != norm {
			t.Fatalf("round trip changed the rule:\n%q\n%q", printed, r2.String())
		}
		r3, err := ParseRule(norm)
		if err != nil {
			t.Fatalf("normal form %q does not parse: %v", norm, err)
		}
		if again := Normalize(r3); again != norm {
			t.Fatalf("Normalize is not idempotent:\n%q\n%q", norm, again)
		}
		if strings.Contains(norm, "\n") && !strings.Contains(line, "\n") {
			t.Fatalf("normal form grew a newline: %q", norm)
		}
	})
}

// FuzzSplitWords compares the tokenizer with a plain character-by-character
// transcription of iptables-restore's add_param_to_argv, and checks that
// JoinWords gives the words back. The seed corpus is in
// testdata/fuzz/FuzzSplitWords.
func FuzzSplitWords(f *testing.F) {
	f.Add(`-m comment --comment "ns1/svc1:p80 cluster IP" -j X`)
	f.Add(`a"b \"c\" \\"d ""`)
	f.Fuzz(func(t *testing.T, line string) {
		got, err := SplitWords(line)
		want, wantErr := referenceSplit(line)
		if (err != nil) != (wantErr != nil) || !slices.Equal(got, want) {
			t.Fatalf("SplitWords(%q) = %q, %v; reference %q, %v", line, got, err, want, wantErr)
		}
		if err != nil {
			return
		}
		back, err := SplitWords(JoinWords(got))
		if err != nil || !slices.Equal(back, got) {
			t.Fatalf("JoinWords(%q) = %q reads back as %q, %v", got, JoinWords(got), back, err)
		}
	})
}

// referenceSplit is add_param_to_argv (iptables 1.8) transcribed: blanks
// separate words, a quote opens a section in which a backslash escapes the
// next character, the closing quote ends the word.
func referenceSplit(line string) ([]string, error) {
	words := []string{}
	var cur []byte
	inWord, quoted, escaped := false, false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && escaped:
			cur, escaped = append(cur, c), false
		case quoted && c == '\\':
			escaped = true
		case quoted && c == '"':
			quoted, inWord = false, false
			words, cur = append(words, string(cur)), cur[:0]
		case quoted:
			cur = append(cur, c)
		case c == '"':
			quoted, inWord = true, true
		case c == ' ' || c == '\t':
			if inWord {
				words, cur, inWord = append(words, string(cur)), cur[:0], false
			}
		default:
			cur, inWord = append(cur, c), true
		}
	}
	if quoted {
		return nil, ErrUnterminatedQuote
	}
	if inWord {
		words = append(words, string(cur))
	}
	return words, nil
}
