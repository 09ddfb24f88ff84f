package nftables

// tableBlock parses the listing form "table [family] name { … }"; the
// "table" keyword has been read.
func (p *parser) tableBlock(line int) error {
	head, err := p.blockHead(line, "table")
	if err != nil {
		return err
	}
	fam, name, i, err := objRef(append([]token{{text: "table", line: line}, {text: "table", line: line}}, head...), 2)
	if err != nil {
		return err
	}
	if i != len(head)+2 {
		return errorf(line, "table: unexpected %q", head[i-2].text)
	}
	t := p.rs.ensureTable(fam, name)
	for {
		p.skipSeparators()
		tok := p.peek()
		switch {
		case tok.is("}"):
			p.next()
			return p.applyPending()
		case tok.is("chain"):
			p.next()
			if err := p.chainBlock(t, tok.line); err != nil {
				return err
			}
		case tok.is("set") || tok.is("map"):
			p.next()
			if err := p.setBlock(t, tok.is("map"), tok.line); err != nil {
				return err
			}
		case tok.is("counter"):
			p.next()
			if err := p.counterBlock(t, tok.line); err != nil {
				return err
			}
		case tok.kind == tokEOF:
			return errorf(tok.line, "table %s: missing }", name)
		default:
			stmt, err := p.statement()
			if err != nil {
				return err
			}
			if err := tableClause(t, stmt); err != nil {
				return err
			}
		}
	}
}

// blockHead reads the words between a block keyword and its "{" on the
// same line, and consumes the "{".
func (p *parser) blockHead(line int, what string) ([]token, error) {
	var head []token
	for {
		t := p.next()
		switch {
		case t.is("{"):
			if len(head) == 0 {
				return nil, errorf(line, "%s: missing name", what)
			}
			return head, nil
		case t.kind != tokWord || !validName(t.text):
			return nil, errorf(t.line, "%s: want NAME {", what)
		}
		head = append(head, t)
	}
}

// chainBlock parses "chain NAME { [type …; policy …;] [comment …] rules }".
func (p *parser) chainBlock(t *Table, line int) error {
	head, err := p.blockHead(line, "chain")
	if err != nil {
		return err
	}
	if len(head) != 1 {
		return errorf(line, "chain: want one name")
	}
	c := t.ensureChain(head[0].text, line)
	var rules [][]token
	for {
		p.skipSeparators()
		tok := p.peek()
		if tok.is("}") {
			p.next()
			break
		}
		if tok.kind == tokEOF {
			return errorf(tok.line, "chain %s: missing }", c.Name)
		}
		stmt, err := p.statement()
		if err != nil {
			return err
		}
		switch {
		case stmt[0].is("type") || stmt[0].is("policy") || (stmt[0].is("comment") && len(stmt) == 2):
			if err := chainClause(c, stmt); err != nil {
				return err
			}
		default:
			rules = append(rules, stmt)
		}
	}
	// Rules are added once the whole table is known: they may jump to
	// chains listed later.
	p.pending = append(p.pending, pendingRules{table: t, chain: c, rules: rules})
	return nil
}

// setBlock parses "set|map NAME { type …; flags …; elements = { … } }".
func (p *parser) setBlock(t *Table, isMap bool, line int) error {
	head, err := p.blockHead(line, "set")
	if err != nil {
		return err
	}
	if len(head) != 1 {
		return errorf(line, "set: want one name")
	}
	s := t.ensureSet(head[0].text, isMap, line)
	var elements [][]token
	for {
		p.skipSeparators()
		tok := p.peek()
		if tok.is("}") {
			p.next()
			break
		}
		if tok.kind == tokEOF {
			return errorf(tok.line, "set %s: missing }", s.Name)
		}
		stmt, err := p.statement()
		if err != nil {
			return err
		}
		if stmt[0].is("elements") {
			elements = append(elements, stmt) // may name chains listed later
			continue
		}
		if err := p.setClause(t, s, stmt); err != nil {
			return err
		}
	}
	if len(s.KeyType) == 0 {
		return errorf(line, "set %s: no type", s.Name)
	}
	p.pendingElements = append(p.pendingElements, pendingSet{table: t, set: s, clauses: elements})
	return nil
}
