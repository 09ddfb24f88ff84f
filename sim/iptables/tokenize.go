package iptables

import (
	"errors"
	"strings"
)

// ErrUnterminatedQuote is returned by SplitWords for a line whose last
// double quote is never closed.
var ErrUnterminatedQuote = errors.New("unterminated quote")

// SplitWords splits a rule line into words the way iptables-restore does
// (add_param_to_argv): words are separated by spaces or tabs; a double quote
// opens a section that may hold spaces, inside which a backslash escapes the
// next character; the closing quote ends the word ("" is an empty word).
// Outside quotes a backslash is an ordinary character.
func SplitWords(line string) ([]string, error) {
	if strings.IndexByte(line, '"') < 0 {
		return splitPlain(line), nil
	}
	return splitQuoted(line)
}

// splitPlain splits a line without quotes; the words share its memory.
func splitPlain(line string) []string {
	words := make([]string, 0, 16)
	start := -1
	for i := 0; i < len(line); i++ {
		if c := line[i]; c == ' ' || c == '\t' {
			if start >= 0 {
				words = append(words, line[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, line[start:])
	}
	return words
}

// splitQuoted splits a line with quotes. Words without escapes share the
// line's memory; only a quoted part with backslashes is copied.
func splitQuoted(line string) ([]string, error) {
	words := make([]string, 0, 16)
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			return words, nil
		}
		start := i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' && line[i] != '"' {
			i++
		}
		if i == len(line) || line[i] != '"' {
			words = append(words, line[start:i])
			continue
		}
		// An opening quote: the word is what came before it plus the quoted
		// text, and the closing quote ends the word.
		word, next, err := readQuoted(line, i+1)
		if err != nil {
			return nil, err
		}
		if prefix := line[start:i]; prefix != "" {
			word = prefix + word
		}
		words = append(words, word)
		i = next
	}
}

// readQuoted reads quoted text starting at line[i] (after the opening
// quote) and returns it unescaped with the index after the closing quote.
func readQuoted(line string, i int) (string, int, error) {
	start := i
	for i < len(line) && line[i] != '"' && line[i] != '\\' {
		i++
	}
	if i < len(line) && line[i] == '"' {
		return line[start:i], i + 1, nil
	}
	var b strings.Builder
	b.WriteString(line[start:i])
	for i < len(line) {
		switch c := line[i]; c {
		case '\\':
			if i+1 >= len(line) {
				return "", 0, ErrUnterminatedQuote
			}
			b.WriteByte(line[i+1])
			i += 2
		case '"':
			return b.String(), i + 1, nil
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, ErrUnterminatedQuote
}

// QuoteWord returns w as it must be written in a rule line so SplitWords
// reads it back: unchanged unless it is empty or holds white space or a
// double quote, in which case it is double-quoted with '"' and '\'
// backslash-escaped. This is kube-proxy's style: comments with spaces are
// quoted, "ns1/svc1:p80" is not.
func QuoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\"\r\n\v\f") {
		return w
	}
	var b strings.Builder
	b.Grow(len(w) + 2)
	b.WriteByte('"')
	for i := 0; i < len(w); i++ {
		if w[i] == '"' || w[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(w[i])
	}
	b.WriteByte('"')
	return b.String()
}

// JoinWords joins words with single spaces, quoting each as QuoteWord does.
func JoinWords(words []string) string {
	var b strings.Builder
	writeWords(&b, words)
	return b.String()
}

func writeWords(b *strings.Builder, words []string) {
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(QuoteWord(w))
	}
}
