package nftables

import (
	"strconv"
	"strings"
)

// parseRule turns a rule body into a Rule: tokens, trailing comment and
// recognised expressions. Statements it does not model end up in one
// Unknown expression; only malformed input is an error.
func parseRule(body []token, line int) (*Rule, error) {
	r := &Rule{Line: line}
	if n := len(body); n >= 2 && body[n-2].is("comment") && body[n-1].kind == tokString {
		r.Comment = body[n-1].text
		body = body[:n-2]
	}
	if len(body) == 0 {
		return nil, errorf(line, "empty rule")
	}
	for _, t := range body {
		if t.kind == tokString {
			r.Tokens = append(r.Tokens, quote(t.text))
		} else {
			r.Tokens = append(r.Tokens, t.text)
		}
	}
	rp := &ruleParser{ts: body, line: line}
	for rp.i < len(rp.ts) {
		x, err := rp.expr()
		if err != nil {
			return nil, err
		}
		r.Exprs = append(r.Exprs, x)
	}
	return r, nil
}

// ruleParser reads expressions from a rule's tokens.
type ruleParser struct {
	ts   []token
	i    int
	line int
}

// at returns token i+k or an EOF token.
func (rp *ruleParser) at(k int) token {
	if rp.i+k < len(rp.ts) {
		return rp.ts[rp.i+k]
	}
	return token{kind: tokEOF, line: rp.line}
}

// unknown swallows the rest of the rule.
func (rp *ruleParser) unknown() Expr {
	var u Unknown
	for _, t := range rp.ts[rp.i:] {
		u.Tokens = append(u.Tokens, t.text)
	}
	rp.i = len(rp.ts)
	return u
}

// expr reads one statement or match.
func (rp *ruleParser) expr() (Expr, error) {
	t := rp.at(0)
	if t.kind != tokWord {
		return rp.unknown(), nil
	}
	switch t.text {
	case "jump", "goto":
		if rp.at(1).kind != tokWord || isPunct(rp.at(1).text) {
			return nil, errorf(rp.line, "%s without a chain", t.text)
		}
		rp.i += 2
		return Verdict{Kind: t.text, Chain: rp.at(-1).text}, nil
	case "accept", "drop", "return", "continue":
		rp.i++
		return Verdict{Kind: t.text}, nil
	case "reject":
		return rp.reject(), nil
	case "counter":
		if rp.at(1).is("name") {
			return rp.namedCounter()
		}
		return rp.counter(), nil
	case "masquerade":
		return rp.masquerade(), nil
	case "dnat", "snat":
		return rp.nat()
	case "update", "add":
		if strings.HasPrefix(rp.at(1).text, "@") {
			return rp.setUpdate()
		}
	case "numgen":
		return rp.numgen()
	case "log":
		return rp.log(), nil
	case "limit":
		return rp.limit(), nil
	case "notrack":
		rp.i++
		return Notrack{}, nil
	}
	if (t.is("mark") && rp.at(1).is("set")) || (t.is("meta") && rp.at(1).is("mark") && rp.at(2).is("set")) {
		return rp.markSet()
	}
	return rp.match()
}

// reject reads "reject [with KIND [VALUE]]".
func (rp *ruleParser) reject() Expr {
	rp.i++
	if !rp.at(0).is("with") {
		return Reject{}
	}
	parts := []string{rp.at(1).text}
	rp.i += 2
	if parts[0] != "tcp" || rp.at(0).is("reset") {
		parts = append(parts, rp.at(0).text)
		rp.i++
	}
	return Reject{With: strings.Join(parts, " ")}
}

// counter reads "counter [packets N bytes M]".
func (rp *ruleParser) counter() Expr {
	rp.i++
	var c Counter
	for rp.at(0).is("packets") || rp.at(0).is("bytes") {
		n, _ := strconv.ParseUint(rp.at(1).text, 10, 64)
		if rp.at(0).is("packets") {
			c.Packets = n
		} else {
			c.Bytes = n
		}
		rp.i += 2
	}
	return c
}

// masquerade reads "masquerade [flag[,flag]…]".
func (rp *ruleParser) masquerade() Expr {
	rp.i++
	var m Masquerade
	for {
		t := rp.at(0)
		switch {
		case t.is("fully-random") || t.is("random") || t.is("persistent"):
			m.Flags = append(m.Flags, t.text)
		case t.is(",") && len(m.Flags) > 0:
		default:
			return m
		}
		rp.i++
	}
}

// logOptions are the words of "log" that take a value.
var logOptions = map[string]bool{"prefix": true, "level": true, "group": true, "snaplen": true, "queue-threshold": true, "flags": true}

// log reads "log [prefix STR] [level L] [group N] [flags F]".
func (rp *ruleParser) log() Expr {
	rp.i++
	var l Log
	for logOptions[rp.at(0).text] && rp.at(0).kind == tokWord {
		if rp.at(0).is("prefix") {
			l.Prefix = rp.at(1).text
		}
		rp.i += 2
	}
	return l
}

// limit reads "limit rate [over] N/UNIT [burst N packets|bytes]".
func (rp *ruleParser) limit() Expr {
	var l Limit
	start := rp.i
	rp.i++
	if rp.at(0).is("rate") {
		rp.i++
	}
	if rp.at(0).is("over") {
		l.Over = true
		rp.i++
	}
	var words []string
	for rp.at(0).kind == tokWord && !isPunct(rp.at(0).text) && !isStatement(rp.at(0).text) {
		words = append(words, rp.at(0).text)
		rp.i++
	}
	l.Rate = strings.Join(words, " ")
	if l.Rate == "" {
		rp.i = start
		return rp.unknown()
	}
	return l
}

// isStatement reports whether w starts a statement that ends a limit's
// rate ("limit rate 3/minute burst 5 packets log ...").
func isStatement(w string) bool {
	switch w {
	case "accept", "drop", "reject", "return", "jump", "goto", "continue", "log", "counter", "masquerade", "dnat", "snat", "notrack", "meta", "mark", "ct", "queue":
		return true
	}
	return false
}
