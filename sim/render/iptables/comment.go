package iptables

import "strings"

// maxComment is the longest comment the kernel's comment match keeps
// (XT_MAX_COMMENT_LEN - 1); iptables-restore rejects longer ones.
const maxComment = 255

// plainName reports whether kube-proxy's way of writing a name into a
// comment is safe for s: kube-proxy copies names verbatim, wrapping phrase
// comments in double quotes (fmt.Sprintf(`"%s cluster IP"`, name)) and
// leaving name-only comments bare. That parses back only if s has no white
// space, control character, double quote or backslash, which Kubernetes'
// name validation guarantees, and it must leave room in the comment.
func plainName(s string) bool {
	if len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == '"' || c == '\\' || c == 0x7f {
			return false
		}
	}
	return true
}

// commentWord returns the comment text as one iptables-restore word. For a
// text built from plain names it is exactly what kube-proxy writes: quoted
// (`"ns1/svc1:p80 cluster IP"`) when quote is set, bare (`ns1/svc1:p80`)
// otherwise. Any other text, which kube-proxy would write into a broken or
// injected line, is made safe: control characters (a newline among them)
// become spaces, the text is cut to the kernel's 255 bytes, and it is
// double-quoted with '"' and '\' backslash-escaped, which is how
// iptables-restore reads a quoted word. No name can end the line or add a
// word to the rule.
func commentWord(text string, quote bool) string {
	if plainName(text) {
		if quote {
			return `"` + text + `"`
		}
		return text
	}
	if quote && plainPhrase(text) {
		return `"` + text + `"`
	}
	b := []byte(text)
	for i, c := range b {
		if c < ' ' || c == 0x7f {
			b[i] = ' '
		}
	}
	if len(b) > maxComment {
		b = b[:maxComment]
	}
	var out strings.Builder
	out.Grow(len(b) + 8)
	out.WriteByte('"')
	for _, c := range b {
		if c == '"' || c == '\\' {
			out.WriteByte('\\')
		}
		out.WriteByte(c)
	}
	out.WriteByte('"')
	return out.String()
}

// plainPhrase reports whether text can go between double quotes as it is:
// like plainName, but spaces are allowed.
func plainPhrase(text string) bool {
	if len(text) > maxComment {
		return false
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < ' ' || c == '"' || c == '\\' || c == 0x7f {
			return false
		}
	}
	return true
}
