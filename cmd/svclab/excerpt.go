package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what an error message may echo of its input: the parsers
// quote the text they stumble on, and svclab often runs as root, so a
// mistaken path (/etc/shadow) must not print the file.
const (
	// maxQuoted is the most characters of one quoted excerpt.
	maxQuoted = 20
	// maxMessage is the most characters of a whole message.
	maxMessage = 1000
)

// quoted matches a double-quoted excerpt as %q writes it.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// safeMessage is msg as svclab prints it: every quoted excerpt cut to
// maxQuoted characters, control and bidirectional-formatting characters
// escaped, and the whole cut to maxMessage characters.
func safeMessage(msg string) string {
	msg = quoted.ReplaceAllStringFunc(msg, func(q string) string {
		inner := q[1 : len(q)-1]
		if utf8.RuneCountInString(inner) <= maxQuoted {
			return q
		}
		return `"` + trimEscape(string([]rune(inner)[:maxQuoted])) + `…"`
	})
	var b strings.Builder
	for _, r := range msg {
		switch {
		case r == '\n' || r == '\t' || (unicode.IsPrint(r) && r != utf8.RuneError):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	out := []rune(b.String())
	if len(out) > maxMessage {
		return string(out[:maxMessage]) + fmt.Sprintf("… (%d more characters)", len(out)-maxMessage)
	}
	return string(out)
}

// completeEscape is a whole backslash escape of %q.
var completeEscape = regexp.MustCompile(`^\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[abfnrtv\\"'])`)

// trimEscape drops a backslash escape that the cut left unfinished.
func trimEscape(s string) string {
	if i := strings.LastIndexByte(s, '\\'); i >= 0 && i >= len(s)-5 {
		tail := s[i:]
		if !completeEscape.MatchString(tail) {
			return s[:i]
		}
	}
	return s
}
