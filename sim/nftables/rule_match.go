package nftables

import (
	"strings"
)

// selector reads a packet-field selector at the current position.
func (rp *ruleParser) selector() (Selector, bool) {
	a, b, c := rp.at(0).text, rp.at(1).text, rp.at(2).text
	if rp.at(0).kind != tokWord {
		return "", false
	}
	switch {
	case (a == "ip" || a == "ip6") && (b == "saddr" || b == "daddr" || b == "protocol"):
		rp.i += 2
		return Selector(a + " " + b), true
	case a == "meta" && (b == "l4proto" || b == "mark" || b == "nfproto" || b == "iifname" || b == "oifname"):
		rp.i += 2
		return Selector(a + " " + b), true
	case a == "mark" || a == "l4proto" || a == "iifname" || a == "oifname" || a == "nfproto":
		rp.i++
		return Selector("meta " + a), true
	case (a == "th" || a == "tcp" || a == "udp" || a == "sctp") && (b == "dport" || b == "sport"):
		rp.i += 2
		return Selector(a + " " + b), true
	case a == "ct" && (b == "state" || b == "status"):
		rp.i += 2
		return Selector(a + " " + b), true
	case a == "fib" && (b == "saddr" || b == "daddr") && c == "type":
		rp.i += 3
		return Selector(a + " " + b + " type"), true
	}
	return "", false
}

// concat reads "sel [. sel …]".
func (rp *ruleParser) concat() ([]Selector, bool) {
	s, ok := rp.selector()
	if !ok {
		return nil, false
	}
	out := []Selector{s}
	for rp.at(0).is(".") {
		save := rp.i
		rp.i++
		s, ok := rp.selector()
		if !ok {
			rp.i = save
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// match reads a match, a verdict-map lookup, or falls back to Unknown.
func (rp *ruleParser) match() (Expr, error) {
	start := rp.i
	left, ok := rp.concat()
	if !ok {
		return rp.unknown(), nil
	}
	if rp.at(0).is("vmap") {
		rp.i++
		return rp.vmap(left)
	}
	m := Match{Left: left, Op: "=="}
	if rp.at(0).is("and") || rp.at(0).is("&") {
		v, err := parseUint32(rp.at(1).text)
		if err != nil {
			rp.i = start
			return rp.unknown(), nil
		}
		m.Mask, m.HasMask = v, true
		rp.i += 2
	}
	if rp.at(0).is("==") || rp.at(0).is("!=") {
		m.Op = rp.at(0).text
		rp.i++
	}
	v, err := rp.value()
	if err != nil {
		return nil, err
	}
	m.Right = v
	return m, nil
}

// value reads "@set", "{ a, b }" or literal[,literal…].
func (rp *ruleParser) value() (Value, error) {
	t := rp.at(0)
	switch {
	case t.kind == tokString:
		rp.i++
		return Value{Literals: []string{t.text}}, nil
	case t.kind != tokWord || isPunct(t.text) && !t.is("{"):
		return Value{}, errorf(rp.line, "match without a value")
	case strings.HasPrefix(t.text, "@") && len(t.text) > 1:
		rp.i++
		return Value{SetRef: t.text[1:]}, nil
	case t.is("{"):
		elems, err := rp.braced()
		if err != nil {
			return Value{}, err
		}
		var v Value
		for _, e := range elems {
			v.Anon = append(v.Anon, joinTokens(e))
		}
		return v, nil
	}
	v := Value{Literals: []string{t.text}}
	rp.i++
	for rp.at(0).is(",") && rp.at(1).kind == tokWord && !isPunct(rp.at(1).text) {
		v.Literals = append(v.Literals, rp.at(1).text)
		rp.i += 2
	}
	return v, nil
}

// braced reads "{ x, y, … }" and returns each comma-separated entry.
func (rp *ruleParser) braced() ([][]token, error) {
	rp.i++ // {
	var out [][]token
	var cur []token
	for {
		t := rp.at(0)
		rp.i++
		switch {
		case t.kind == tokEOF:
			return nil, errorf(rp.line, "missing } in rule")
		case t.is("{"):
			return nil, errorf(rp.line, "nested { in rule")
		case t.is(",") || t.is("}"):
			if len(cur) == 0 && (t.is(",") || len(out) > 0) {
				return nil, errorf(rp.line, "empty entry in { }")
			}
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			if t.is("}") {
				return out, nil
			}
		default:
			cur = append(cur, t)
		}
	}
}

// vmap reads "vmap @map" or "vmap { k : verdict, … }".
func (rp *ruleParser) vmap(key []Selector) (Expr, error) {
	t := rp.at(0)
	if strings.HasPrefix(t.text, "@") && len(t.text) > 1 && t.kind == tokWord {
		rp.i++
		return VerdictMap{Key: key, MapRef: t.text[1:]}, nil
	}
	if !t.is("{") {
		return nil, errorf(rp.line, "vmap without a map")
	}
	entries, err := rp.mapEntries()
	if err != nil {
		return nil, err
	}
	return VerdictMap{Key: key, Anon: entries}, nil
}

// mapEntries reads an anonymous verdict map "{ k : verdict, … }".
func (rp *ruleParser) mapEntries() ([]MapEntry, error) {
	elems, err := rp.braced()
	if err != nil {
		return nil, err
	}
	var out []MapEntry
	for _, e := range elems {
		colon := -1
		for j, t := range e {
			if t.is(":") {
				colon = j
				break
			}
		}
		if colon <= 0 {
			return nil, errorf(rp.line, "map entry %q: missing key or :", joinTokens(e))
		}
		var val []string
		for _, t := range e[colon+1:] {
			val = append(val, t.text)
		}
		v, ok := verdictOf(val)
		if !ok {
			return nil, errorf(rp.line, "map entry %q: bad verdict", joinTokens(e))
		}
		out = append(out, MapEntry{Key: joinTokens(e[:colon]), Verdict: v})
	}
	return out, nil
}
