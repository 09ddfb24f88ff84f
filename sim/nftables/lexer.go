package nftables

import (
	"fmt"
	"strings"
)

// tokKind tells words from quoted strings and line ends.
type tokKind uint8

const (
	tokWord tokKind = iota
	tokString
	tokNewline
	tokEOF
)

// token is one lexical token and the line it starts on.
type token struct {
	text string
	kind tokKind
	line int
}

// is reports whether t is the word w (never a quoted string).
func (t token) is(w string) bool { return t.kind == tokWord && t.text == w }

// lex splits src into words, quoted strings and newlines. The characters
// { } ; , are tokens of their own; # starts a comment to the end of line.
func lex(src string) ([]token, error) {
	// About one token per 6 bytes in kube-proxy's scripts: sized once,
	// the slice is not copied over and over as it grows.
	toks := make([]token, 0, len(src)/6+16)
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			toks = append(toks, token{text: "\n", kind: tokNewline, line: line})
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			line++ // line continuation
			i += 2
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"':
			j := strings.IndexByte(src[i+1:], '"')
			if j < 0 {
				return nil, fmt.Errorf("line %d: unterminated string", line)
			}
			s := src[i+1 : i+1+j]
			if strings.IndexByte(s, '\n') >= 0 {
				return nil, fmt.Errorf("line %d: newline in string", line)
			}
			toks = append(toks, token{text: s, kind: tokString, line: line})
			i += j + 2
		case c == '{' || c == '}' || c == ';' || c == ',':
			toks = append(toks, token{text: src[i : i+1], kind: tokWord, line: line})
			i++
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \t\r\n{};,\"#", rune(src[j])) {
				j++
			}
			toks = append(toks, token{text: src[i:j], kind: tokWord, line: line})
			i = j
		}
	}
	toks = append(toks, token{kind: tokEOF, line: line})
	return toks, nil
}
