package nftables

import "slices"

// addCounter handles `add counter TABLE NAME`: a named counter object
// (kube-proxy v1.36+ adds and deletes localhost-nodeport-rejected-*). Adding
// one that exists is a no-op, as in nft.
func (p *parser) addCounter(stmt []token) error {
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		return err
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	if !slices.Contains(t.Counters, name) {
		t.Counters = append(t.Counters, name)
	}
	return nil
}

// deleteCounter removes a named counter; a missing one is an error unless
// destroy.
func (t *Table) deleteCounter(name string, destroy bool, line int) error {
	i := slices.Index(t.Counters, name)
	if i < 0 {
		if destroy {
			return nil
		}
		return errorf(line, "delete counter %s: no such counter", name)
	}
	if t.counterInUse(name) {
		return errorf(line, "delete counter %s: a rule uses it", name)
	}
	t.Counters = slices.Delete(t.Counters, i, i+1)
	return nil
}

// NamedCounter is `counter name "NAME"`: the rule counts into the named
// counter object NAME (kube-proxy v1.36+'s localhost-nodeport-reject-*
// chains). It does not change the packet's way.
type NamedCounter struct{ Name string }

func (NamedCounter) isExpr() {}

// namedCounter reads `counter name "NAME"` (or an unquoted NAME).
func (rp *ruleParser) namedCounter() (Expr, error) {
	t := rp.at(2)
	if (t.kind != tokWord && t.kind != tokString) || t.text == "" || isPunct(t.text) {
		return nil, errorf(rp.line, "counter name without a name")
	}
	rp.i += 3
	return NamedCounter{Name: t.text}, nil
}

// counterBlock parses the listing form "counter NAME { packets N bytes M }";
// the "counter" keyword has been read. The values are not kept.
func (p *parser) counterBlock(t *Table, line int) error {
	head, err := p.blockHead(line, "counter")
	if err != nil {
		return err
	}
	if len(head) != 1 {
		return errorf(line, "counter: want one name")
	}
	for {
		p.skipSeparators()
		tok := p.peek()
		switch {
		case tok.is("}"):
			p.next()
			if !slices.Contains(t.Counters, head[0].text) {
				t.Counters = append(t.Counters, head[0].text)
			}
			return nil
		case tok.kind == tokEOF:
			return errorf(tok.line, "counter %s: missing }", head[0].text)
		}
		stmt, err := p.statement()
		if err != nil {
			return err
		}
		if !stmt[0].is("packets") && !stmt[0].is("bytes") && !stmt[0].is("comment") {
			return errorf(stmt[0].line, "counter %s: unexpected %q", head[0].text, stmt[0].text)
		}
	}
}

// checkCounterRefs fails when r counts into a counter object that does not
// exist (nft: "No such file or directory").
func (t *Table) checkCounterRefs(r *Rule) error {
	for _, x := range r.Exprs {
		if c, ok := x.(NamedCounter); ok && !slices.Contains(t.Counters, c.Name) {
			return errorf(r.Line, "rule %q: counter %s does not exist", r.Text(), c.Name)
		}
	}
	return nil
}

// counterInUse reports whether a rule of t counts into counter name (nft
// refuses to delete it: "Device or resource busy").
func (t *Table) counterInUse(name string) bool {
	for _, c := range t.Chains {
		for _, r := range c.Rules {
			for _, x := range r.Exprs {
				if nc, ok := x.(NamedCounter); ok && nc.Name == name {
					return true
				}
			}
		}
	}
	return false
}
