package apicheck

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxExcerpt is how many bytes of an input string a message quotes.
const maxExcerpt = 40

// Excerpt quotes s for a message: Go-quoted with every non-ASCII or
// control character escaped, and cut to its first 40 bytes ("…" and the
// length follow a cut).
func Excerpt(s string) string {
	if len(s) <= maxExcerpt {
		return strconv.QuoteToASCII(s)
	}
	cut := maxExcerpt
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.QuoteToASCII(s[:cut]), len(s))
}

// OneLine escapes what must not reach a terminal raw from an error
// message: control characters (newline, NUL, escape, …) and format
// characters (bidi overrides such as U+202E, zero-width joiners).
func OneLine(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeRune(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// SafeName reports whether s can be printed as it is: short, and only
// lower-case letters, digits and "-./" (what valid names are made of).
func SafeName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '/') {
			return false
		}
	}
	return true
}

// Show returns a name as a message prints it: as it is when SafeName,
// else as an Excerpt.
func Show(s string) string {
	if s != "" && SafeName(s) {
		return s
	}
	return Excerpt(s)
}
