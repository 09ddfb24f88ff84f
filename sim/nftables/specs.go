package nftables

import (
	"fmt"
	"strconv"
	"strings"
)

// braceClauses reads an optional "{ clause ; clause ; }" at stmt[i] that
// must end the statement, and returns its ";"-separated clauses.
func braceClauses(stmt []token, i int) ([][]token, error) {
	if i == len(stmt) {
		return nil, nil
	}
	if !stmt[i].is("{") || !stmt[len(stmt)-1].is("}") {
		return nil, errorf(stmt[i].line, "unexpected %q", stmt[i].text)
	}
	var out [][]token
	var cur []token
	depth := 0
	for _, t := range stmt[i+1 : len(stmt)-1] {
		switch {
		case t.is("{"):
			depth++
		case t.is("}"):
			depth--
			if depth < 0 {
				return nil, errorf(t.line, "unbalanced }")
			}
		case depth == 0 && t.is(";"):
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// chainClause applies one clause of a chain declaration: "type T hook H
// [device D] priority P", "policy P" or "comment "…"".
func chainClause(c *Chain, cl []token) error {
	switch {
	case cl[0].is("type"):
		return baseChainSpec(c, cl)
	case cl[0].is("policy") && len(cl) == 2 && cl[1].kind == tokWord && isKeyword(cl[1].text):
		c.Policy = cl[1].text
	case cl[0].is("comment") && len(cl) == 2 && cl[1].kind == tokString:
		c.Comment = cl[1].text
	default:
		return errorf(cl[0].line, "chain %s: unsupported clause %q", c.Name, joinTokens(cl))
	}
	return nil
}

// baseChainSpec parses "type T hook H [device D] priority P…".
func baseChainSpec(c *Chain, cl []token) error {
	if len(cl) < 6 || !cl[2].is("hook") {
		return errorf(cl[0].line, "chain %s: want \"type T hook H priority P\"", c.Name)
	}
	c.Type, c.Hook = cl[1].text, cl[3].text
	i := 4
	if cl[i].is("device") && i+2 < len(cl) {
		i += 2
	}
	if !cl[i].is("priority") || i+1 >= len(cl) {
		return errorf(cl[0].line, "chain %s: missing priority", c.Name)
	}
	prio, text, err := parsePriority(cl[i+1:])
	if err != nil {
		return errorf(cl[0].line, "chain %s: %v", c.Name, err)
	}
	c.Priority, c.PriorityText = prio, text
	if c.Policy == "" {
		c.Policy = "accept"
	}
	return nil
}

// standardPriorities are nft's named priorities for the ip/ip6/inet families.
var standardPriorities = map[string]int{
	"raw": -300, "mangle": -150, "dstnat": -100, "filter": 0, "security": 50, "srcnat": 100,
}

// parsePriority reads "N", "NAME" or "NAME +|- N".
func parsePriority(ts []token) (int, string, error) {
	text := joinTokens(ts)
	if n, err := strconv.Atoi(ts[0].text); err == nil && len(ts) == 1 {
		return n, text, nil
	}
	base, ok := standardPriorities[ts[0].text]
	if !ok {
		return 0, "", fmt.Errorf("unknown priority %q", text)
	}
	switch {
	case len(ts) == 1:
		return base, text, nil
	case len(ts) == 3 && (ts[1].is("+") || ts[1].is("-")):
		n, err := strconv.Atoi(ts[2].text)
		if err != nil {
			return 0, "", fmt.Errorf("bad priority offset %q", text)
		}
		if ts[1].is("-") {
			n = -n
		}
		return base + n, text, nil
	case len(ts) == 2 && (strings.HasPrefix(ts[1].text, "-") || strings.HasPrefix(ts[1].text, "+")):
		if n, err := strconv.Atoi(ts[1].text); err == nil { // "dstnat -10"
			return base + n, text, nil
		}
	}
	return 0, "", fmt.Errorf("bad priority %q", text)
}

// setClause applies one clause of a set or map declaration.
func (p *parser) setClause(t *Table, s *Set, cl []token) error {
	switch {
	case cl[0].is("type") || cl[0].is("typeof"):
		return setType(s, cl)
	case cl[0].is("flags"):
		s.Flags = nil
		for i, f := range cl[1:] {
			switch {
			case i%2 == 1 && f.is(","):
			case i%2 == 0 && f.kind == tokWord && isKeyword(f.text):
				s.Flags = append(s.Flags, f.text)
			default:
				return errorf(cl[0].line, "set %s: bad flags %q", s.Name, joinTokens(cl))
			}
		}
	case cl[0].is("timeout") && len(cl) == 2:
		d, err := parseDuration(cl[1].text)
		if err != nil {
			return errorf(cl[0].line, "set %s: %v", s.Name, err)
		}
		s.Timeout = d
	case cl[0].is("size") && len(cl) == 2:
		n, err := strconv.Atoi(cl[1].text)
		if err != nil || n < 0 {
			return errorf(cl[0].line, "set %s: bad size %q", s.Name, cl[1].text)
		}
		s.Size = n
	case cl[0].is("comment") && len(cl) == 2 && cl[1].kind == tokString:
		s.Comment = cl[1].text
	case cl[0].is("elements") && len(cl) > 2 && cl[1].is("="):
		return p.setElementsClause(t, s, cl)
	case cl[0].is("gc-interval") || cl[0].is("policy") || cl[0].is("auto-merge"):
	default:
		return errorf(cl[0].line, "set %s: unsupported clause %q", s.Name, joinTokens(cl))
	}
	return nil
}

// setType parses "type a . b . c [: v]".
func setType(s *Set, cl []token) error {
	s.KeyType, s.DataType = nil, ""
	key := true
	for _, t := range cl[1:] {
		switch {
		case t.kind != tokWord || isPunct(t.text):
			return errorf(t.line, "set %s: bad type %q", s.Name, joinTokens(cl))
		case t.is("."):
		case t.is(":") && key && s.IsMap:
			key = false
		case key:
			s.KeyType = append(s.KeyType, t.text)
		case s.DataType == "":
			s.DataType = t.text
		default:
			return errorf(t.line, "set %s: bad type %q", s.Name, joinTokens(cl))
		}
	}
	if len(s.KeyType) == 0 || (s.IsMap && s.DataType == "") {
		return errorf(cl[0].line, "set %s: bad type %q", s.Name, joinTokens(cl))
	}
	return nil
}

// setElementsClause applies "elements = { … }" inside a set declaration.
func (p *parser) setElementsClause(t *Table, s *Set, cl []token) error {
	elems, end, err := parseElements(cl, 2)
	if err != nil {
		return err
	}
	if end != len(cl) {
		return errorf(cl[end].line, "unexpected %q after elements", cl[end].text)
	}
	for _, e := range elems {
		if err := t.addElement(s, e, cl[0].line); err != nil {
			return err
		}
	}
	return nil
}

// isKeyword reports whether w is a lower-case nft keyword such as a flag.
func isKeyword(w string) bool {
	if w == "" {
		return false
	}
	for _, c := range w {
		if (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// validName reports whether w can name a table, chain or set: nft allows
// letters, digits and _ . / - , starting with a letter, _ or . (kube-proxy's
// chain names rely on "/" and ".").
func validName(w string) bool {
	if w == "" || len(w) > 256 {
		return false
	}
	for i, c := range w {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.'
		if i == 0 && !letter {
			return false
		}
		if !letter && !(c >= '0' && c <= '9') && c != '/' && c != '-' {
			return false
		}
	}
	return true
}
