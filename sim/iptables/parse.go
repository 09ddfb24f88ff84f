package iptables

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxLineLength is the longest line Parse accepts.
const MaxLineLength = 16 << 20

// Parse reads a dump in iptables-restore or iptables-save form, streaming
// over r. It understands "*table", chain declarations (":NAME - [0:0]" and
// ":PREROUTING ACCEPT [12:720]"), rules ("-A CHAIN ..." with optional
// "[p:b]" counters), "-X CHAIN", "COMMIT", blank lines and "#" comments.
//
// Like kube-proxy's ParseIPTablesDump it rejects a rule for a chain the
// table has not declared (built-in chains need no declaration, as in
// iptables-restore), "-X" of a chain that already has rules, rules
// added to a deleted chain and a table without COMMIT. Errors are
// *ParseError values naming the line.
func Parse(r io.Reader) (*Dump, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineLength)
	p := &dumpParser{dump: &Dump{}}
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, lineErrorf(p.line+1, "line longer than %d bytes", MaxLineLength)
		}
		return nil, fmt.Errorf("read iptables dump: %w", err)
	}
	if p.table != nil {
		return nil, lineErrorf(p.line, "missing COMMIT for table %q", p.table.Name)
	}
	return p.dump, nil
}

// ParseString is Parse over a string.
func ParseString(s string) (*Dump, error) {
	return Parse(strings.NewReader(s))
}

// dumpParser is the state machine of Parse.
type dumpParser struct {
	dump  *Dump
	table *Table // open table, nil between COMMIT and the next "*table"
	line  int
}

func (p *dumpParser) parseLine(raw string) error {
	line := strings.Trim(raw, asciiSpace)
	switch {
	case line == "" || line[0] == '#':
		return nil
	case line[0] == '*':
		return p.openTable(line[1:])
	case p.table == nil:
		return lineErrorf(p.line, "%q outside a table (missing *table line)", clip(line))
	case line == "COMMIT":
		p.table = nil
		return nil
	case line[0] == ':':
		return p.declareChain(line[1:])
	case line[0] == '[' || strings.HasPrefix(line, "-A ") || strings.HasPrefix(line, "--append "):
		return p.addRule(line)
	case strings.HasPrefix(line, "-X ") || strings.HasPrefix(line, "--delete-chain "):
		return p.deleteChain(line)
	}
	return lineErrorf(p.line, "unsupported line %q (only -A and -X commands are modelled)", clip(line))
}

func (p *dumpParser) openTable(name string) error {
	if p.table != nil {
		return lineErrorf(p.line, "missing COMMIT for table %q before *%s", p.table.Name, name)
	}
	if !KnownTable(name) {
		return lineErrorf(p.line, "unknown table %q", name)
	}
	if p.dump.Table(name) != nil {
		return lineErrorf(p.line, "table %q appears twice", name)
	}
	p.table = &Table{Name: name, Line: p.line}
	p.dump.Tables = append(p.dump.Tables, p.table)
	return nil
}

// declareChain parses "NAME POLICY [p:b]" (the text after ':').
func (p *dumpParser) declareChain(decl string) error {
	f := strings.FieldsFunc(decl, isBlank)
	if len(f) < 2 || len(f) > 3 {
		return lineErrorf(p.line, "bad chain declaration %q (want :NAME POLICY [packets:bytes])", clip(decl))
	}
	name, policy := f[0], f[1]
	if err := checkChainName(name); err != nil {
		return &ParseError{Line: p.line, Err: err}
	}
	builtin := IsBuiltinChain(p.table.Name, name)
	switch {
	case policy == "-" && !builtin:
	case (policy == "ACCEPT" || policy == "DROP") && builtin:
	default:
		return lineErrorf(p.line, "bad policy %q for chain %q in table %s", policy, name, p.table.Name)
	}
	if p.table.Chain(name) != nil {
		return lineErrorf(p.line, "chain %q declared twice in table %s", name, p.table.Name)
	}
	c := &Chain{Name: name, Policy: policy, Line: p.line}
	if len(f) == 3 {
		counters, err := parseCounters(f[2])
		if err != nil {
			return &ParseError{Line: p.line, Err: err}
		}
		c.Counters = counters
	}
	p.table.AddChain(c)
	return nil
}

func (p *dumpParser) addRule(line string) error {
	r, err := ParseRule(line)
	if err != nil {
		return &ParseError{Line: p.line, Err: err}
	}
	r.Line = p.line
	c := p.table.Chain(r.Chain)
	if c == nil && IsBuiltinChain(p.table.Name, r.Chain) {
		c = &Chain{Name: r.Chain, Policy: "ACCEPT", Implicit: true, Line: p.line}
		p.table.AddChain(c)
	}
	switch {
	case c == nil:
		return lineErrorf(p.line, "rule for undeclared chain %q in table %s", r.Chain, p.table.Name)
	case c.Deleted:
		return lineErrorf(p.line, "rule for chain %q in table %s after -X", r.Chain, p.table.Name)
	}
	c.Rules = append(c.Rules, r)
	return nil
}

func (p *dumpParser) deleteChain(line string) error {
	f := strings.FieldsFunc(line, isBlank)
	if len(f) != 2 {
		return lineErrorf(p.line, "bad -X line %q (want -X CHAIN)", clip(line))
	}
	c := p.table.Chain(f[1])
	switch {
	case c == nil:
		return lineErrorf(p.line, "-X of undeclared chain %q in table %s", f[1], p.table.Name)
	case IsBuiltinChain(p.table.Name, c.Name):
		return lineErrorf(p.line, "-X of built-in chain %q in table %s", c.Name, p.table.Name)
	case len(c.Rules) > 0:
		return lineErrorf(p.line, "-X after rules: chain %q in table %s already has %d rule(s)", c.Name, p.table.Name, len(c.Rules))
	}
	c.Deleted = true
	return nil
}

// asciiSpace is what Parse trims from both ends of a line. Only ASCII
// white space is trimmed so that a printed dump reads back the same.
const asciiSpace = " \t\r\n\v\f"

func isBlank(r rune) bool { return r == ' ' || r == '\t' }

// clip shortens s for an error message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
