package nftables

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseElements reads "{ e, e, … }" starting at ts[i] (which must be "{")
// and returns the elements and the index after the closing brace.
func parseElements(ts []token, i int) ([]Element, int, error) {
	if i >= len(ts) || !ts[i].is("{") {
		return nil, 0, errorf(ts[0].line, "missing {")
	}
	var out []Element
	var cur []token
	for j := i + 1; j < len(ts); j++ {
		t := ts[j]
		switch {
		case t.is("{"):
			return nil, 0, errorf(t.line, "nested { in elements")
		case t.is(",") || t.is("}"):
			if len(cur) > 0 {
				e, err := parseElement(cur)
				if err != nil {
					return nil, 0, err
				}
				out = append(out, e)
			} else if t.is(",") {
				return nil, 0, errorf(t.line, "empty element")
			}
			cur = nil
			if t.is("}") {
				return out, j + 1, nil
			}
		default:
			cur = append(cur, t)
		}
	}
	return nil, 0, errorf(ts[len(ts)-1].line, "missing } after elements")
}

// parseElement reads "k [. k …] [comment "…"] [timeout D] [expires D]
// [counter packets N bytes M] [: value …]".
func parseElement(ts []token) (Element, error) {
	var e Element
	i := 0
	for ; i < len(ts); i++ {
		t := ts[i]
		if t.kind != tokWord || t.is(":") || isElementAttr(t.text) {
			break
		}
		if i%2 == 1 {
			if !t.is(".") {
				return e, errorf(t.line, "element: want . between key fields, got %q", t.text)
			}
			continue
		}
		e.Key = append(e.Key, t.text)
	}
	if len(e.Key) == 0 || i%2 == 0 {
		return e, errorf(ts[0].line, "element %q: bad key", joinTokens(ts))
	}
	i, err := elementAttrs(&e, ts, i)
	if err != nil {
		return e, err
	}
	if i < len(ts) {
		if !ts[i].is(":") || i+1 == len(ts) {
			return e, errorf(ts[i].line, "element %q: unexpected %q", joinTokens(ts), ts[i].text)
		}
		for _, t := range ts[i+1:] {
			if !t.is(".") {
				e.Value = append(e.Value, t.text)
			}
		}
	}
	return e, nil
}

// isElementAttr reports whether w starts an element attribute.
func isElementAttr(w string) bool {
	return w == "comment" || w == "timeout" || w == "expires" || w == "counter"
}

// elementAttrs reads an element's attributes from ts[i] on and returns the
// index after them.
func elementAttrs(e *Element, ts []token, i int) (int, error) {
	for i < len(ts) && ts[i].kind == tokWord && isElementAttr(ts[i].text) {
		name := ts[i].text
		switch {
		case name == "comment" && i+1 < len(ts) && ts[i+1].kind == tokString:
			e.Comment = ts[i+1].text
			i += 2
		case (name == "timeout" || name == "expires") && i+1 < len(ts):
			d, err := parseDuration(ts[i+1].text)
			if err != nil {
				return 0, errorf(ts[i].line, "element %s: %v", name, err)
			}
			if name == "timeout" {
				e.Timeout = d
			} else {
				e.Expires = d
			}
			i += 2
		case name == "counter":
			i++
			for i+1 < len(ts) && (ts[i].is("packets") || ts[i].is("bytes")) {
				i += 2
			}
		default:
			return 0, errorf(ts[i].line, "element: bad %s", name)
		}
	}
	return i, nil
}

// durationUnits are nft's time units, longest suffix first where it matters.
var durationUnits = []struct {
	suffix string
	unit   time.Duration
}{{"ms", time.Millisecond}, {"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}

// parseDuration reads nft times: "10800s", "3h", "2h59m58s392ms", "1d".
func parseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	var total time.Duration
	for rest := s; rest != ""; {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || j > 12 {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		n, _ := strconv.ParseInt(rest[:j], 10, 64)
		rest = rest[j:]
		matched := false
		for _, u := range durationUnits {
			if strings.HasPrefix(rest, u.suffix) {
				total += time.Duration(n) * u.unit
				rest = rest[len(u.suffix):]
				matched = true
				break
			}
		}
		if !matched {
			if rest == "" && total == 0 {
				return time.Duration(n) * time.Second, nil // bare number: seconds
			}
			return 0, fmt.Errorf("bad duration %q", s)
		}
	}
	return total, nil
}
