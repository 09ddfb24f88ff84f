package scenario

import (
	"fmt"
	"strings"
)

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isLower(c) || isDigit(c) }

// scenarioName validates the scenario's name (it names run directories).
func scenarioName(s string) string {
	if s == "" || len(s) > 63 {
		return "must be 1-63 characters"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && !(c >= 'A' && c <= 'Z') && c != '.' && c != '_' && c != '-' {
			return fmt.Sprintf("must consist of A-Z, a-z, 0-9, '.', '_' or '-' (has %q at byte %d)", string(rune(c)), i)
		}
	}
	if s[0] == '.' || s[0] == '-' {
		return "must not start with '.' or '-'"
	}
	return ""
}

// safeName turns a file's base name into a valid scenario name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !isAlnum(c) && !(c >= 'A' && c <= 'Z') && c != '.' && c != '_' && c != '-' {
			b[i] = '-'
		}
	}
	out := strings.TrimLeft(string(b), ".-")
	if len(out) > 63 {
		out = out[:63]
	}
	if out == "" {
		return "scenario"
	}
	return out
}

// controlChar returns the first control character in s other than newline
// and tab, or -1.
func controlChar(s string) int {
	for i, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return i
		}
	}
	return -1
}
