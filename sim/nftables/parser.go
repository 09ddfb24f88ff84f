package nftables

import (
	"fmt"
	"io"
)

// Parse reads a ruleset in transaction form, listing form, or a mix, and
// returns the state it describes when applied to an empty ruleset.
func Parse(r io.Reader) (*Ruleset, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read nftables input: %w", err)
	}
	return ParseString(string(src))
}

// ParseString is Parse on a string.
func ParseString(src string) (*Ruleset, error) {
	rs := &Ruleset{}
	if err := rs.Apply(src); err != nil {
		return nil, err
	}
	return rs, nil
}

// Apply parses src and applies it to rs, as `nft -f` applies a file to the
// kernel's ruleset. On error rs may be partly changed.
func (rs *Ruleset) Apply(src string) error {
	toks, err := lex(src)
	if err != nil {
		return err
	}
	p := &parser{toks: toks, rs: rs}
	return p.run()
}

// parser walks the token stream.
type parser struct {
	toks []token
	pos  int
	rs   *Ruleset
	// pending holds a listing-form table's rules and elements until the
	// table is complete, since they may name chains listed after them.
	pending         []pendingRules
	pendingElements []pendingSet
}

// pendingRules are the rules of one listed chain.
type pendingRules struct {
	table *Table
	chain *Chain
	rules [][]token
}

// pendingSet is the "elements = { … }" clauses of one listed set.
type pendingSet struct {
	table   *Table
	set     *Set
	clauses [][]token
}

// applyPending adds the elements and rules held back while a listed table
// was read.
func (p *parser) applyPending() error {
	for _, ps := range p.pendingElements {
		for _, cl := range ps.clauses {
			if err := p.setClause(ps.table, ps.set, cl); err != nil {
				return err
			}
		}
	}
	for _, pr := range p.pending {
		for _, stmt := range pr.rules {
			r, err := parseRule(stmt, stmt[0].line)
			if err != nil {
				return err
			}
			if err := pr.table.checkRefs(r); err != nil {
				return err
			}
			pr.chain.Rules = append(pr.chain.Rules, r)
		}
	}
	p.pending, p.pendingElements = nil, nil
	return nil
}

// peek returns the current token (EOF at the end).
func (p *parser) peek() token { return p.toks[p.pos] }

// next returns the current token and advances (never past EOF).
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

// errorf formats an error at line.
func errorf(line int, format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{line}, args...)...)
}

// skipSeparators skips newlines and semicolons.
func (p *parser) skipSeparators() {
	for t := p.peek(); t.kind == tokNewline || t.is(";"); t = p.peek() {
		p.next()
	}
}

// statement collects tokens up to the end of the statement: a newline or
// ";" outside braces, a "}" that closes an enclosing block, or EOF.
// Newlines inside braces are dropped. It fails on unbalanced braces.
func (p *parser) statement() ([]token, error) {
	var out []token
	depth := 0
	for {
		t := p.peek()
		switch {
		case t.kind == tokEOF:
			if depth > 0 {
				return nil, errorf(t.line, "missing }")
			}
			return out, nil
		case depth == 0 && (t.kind == tokNewline || t.is(";") || t.is("}")):
			return out, nil
		case t.kind == tokNewline:
			p.next()
			continue
		case t.is("{"):
			depth++
		case t.is("}"):
			depth--
		}
		out = append(out, p.next())
	}
}

// run applies every top-level command.
func (p *parser) run() error {
	for {
		p.skipSeparators()
		t := p.peek()
		if t.kind == tokEOF {
			return nil
		}
		if t.is("table") {
			p.next()
			if err := p.tableBlock(t.line); err != nil {
				return err
			}
			continue
		}
		if t.is("}") {
			return errorf(t.line, "unexpected }")
		}
		stmt, err := p.statement()
		if err != nil {
			return err
		}
		if err := p.command(stmt); err != nil {
			return err
		}
	}
}
