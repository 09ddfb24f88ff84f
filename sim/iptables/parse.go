package iptables

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// MaxLineLength is the longest line Parse accepts.
const MaxLineLength = 16 << 20

// Parse reads a dump in iptables-restore or iptables-save form, streaming
// over r. It understands "*table", chain declarations (":NAME - [0:0]",
// ":PREROUTING ACCEPT [12:720]" and, as iptables-restore allows, "-" for a
// built-in chain: keep its policy), rules ("-A CHAIN ..." with optional
// "[p:b]" counters, and "-I CHAIN [N] ..."), "-X CHAIN", "COMMIT", blank
// lines and "#" comments.
//
// A table may appear more than once (svclab render --jumps writes the jump
// rules in a second block): the later block continues the table as
// `iptables-restore --noflush` does, which is how kube-proxy and svclab load
// such input; declaring an existing chain in a later block flushes it.
//
// Like kube-proxy's ParseIPTablesDump it rejects a rule for a chain the
// table has not declared (built-in chains need no declaration, as in
// iptables-restore), "-X" of a chain that already has rules, rules
// added to a deleted chain and a table without COMMIT; like
// iptables-restore it rejects a word that is no option nor an option's
// argument ("Bad argument", e.g. an unquoted comment of several words).
// Errors are *ParseError values naming the line.
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
	// block holds the chains declared in the open table block, to refuse a
	// chain declared twice in one block.
	block map[string]bool
	// family is 4 or 6 once a rule has an address (-s, -d), from the rule
	// at familyLine; 0 before.
	family, familyLine int
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
	case strings.HasPrefix(line, "-I ") || strings.HasPrefix(line, "--insert "):
		return p.insertRule(line)
	case strings.HasPrefix(line, "-X ") || strings.HasPrefix(line, "--delete-chain "):
		return p.deleteChain(line)
	}
	return lineErrorf(p.line, "unsupported line %q (only -A, -I and -X commands are modelled)", clip(line))
}

func (p *dumpParser) openTable(name string) error {
	if p.table != nil {
		return lineErrorf(p.line, "missing COMMIT for table %q before *%s", p.table.Name, name)
	}
	if !KnownTable(name) {
		return lineErrorf(p.line, "unknown table %q", name)
	}
	p.block = map[string]bool{}
	if t := p.dump.Table(name); t != nil {
		p.table = t // a later block continues the table (--noflush)
		return nil
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
	case policy == "-":
	case (policy == "ACCEPT" || policy == "DROP") && builtin:
	default:
		return lineErrorf(p.line, "bad policy %q for chain %q in table %s", policy, name, p.table.Name)
	}
	if p.block[name] {
		return lineErrorf(p.line, "chain %q declared twice in table %s", name, p.table.Name)
	}
	p.block[name] = true
	c := &Chain{Name: name, Policy: policy, Line: p.line}
	if len(f) == 3 {
		counters, err := parseCounters(f[2])
		if err != nil {
			return &ParseError{Line: p.line, Err: err}
		}
		c.Counters = counters
	}
	if old := p.table.Chain(name); old != nil {
		// A later block declares the chain again: iptables-restore
		// --noflush flushes it and sets a built-in chain's policy.
		old.Rules, old.Deleted, old.Implicit, old.Counters = nil, false, false, c.Counters
		if policy != "-" {
			old.Policy = policy
		}
		return nil
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
	if err := p.checkFamily(r); err != nil {
		return err
	}
	c, err := p.ruleChain(r.Chain)
	if err != nil {
		return err
	}
	c.Rules = append(c.Rules, r)
	return nil
}

// checkFamily refuses a rule with an address of the other family than the
// dump's earlier rules: iptables and ip6tables keep separate tables (an
// IPv4 table cannot hold an IPv6 address), so a file that concatenates
// iptables-save and ip6tables-save would be read as one family's tables
// continued, or flushed, by the other's.
func (p *dumpParser) checkFamily(r *Rule) error {
	for _, m := range [2]*AddrMatch{&r.Source, &r.Destination} {
		if !m.Set {
			continue
		}
		fam := 4
		if m.Prefix.Addr().Is6() {
			fam = 6
		}
		switch {
		case p.family == 0:
			p.family, p.familyLine = fam, p.line
		case fam != p.family:
			return lineErrorf(p.line, "an IPv%d address in a dump of IPv%d rules (from line %d): iptables-save and ip6tables-save "+
				"are separate dumps; give one family (svclab render: --family ipv4 or ipv6)", fam, p.family, p.familyLine)
		}
	}
	return nil
}

// insertRule parses "-I CHAIN [N] ..." and inserts the rule at 1-based
// position N (default 1), as iptables-restore does.
func (p *dumpParser) insertRule(line string) error {
	words, err := SplitWords(line)
	if err != nil {
		return &ParseError{Line: p.line, Err: err}
	}
	if len(words) < 2 {
		return lineErrorf(p.line, "bad -I line %q (want -I CHAIN [N] ...)", clip(line))
	}
	pos, rest := 1, words[2:]
	if len(rest) > 0 {
		if n, err := strconv.Atoi(rest[0]); err == nil {
			if n < 1 {
				return lineErrorf(p.line, "-I %s %d: bad rule number", words[1], n)
			}
			pos, rest = n, rest[1:]
		}
	}
	r, err := parseRuleWords(append([]string{"-A", words[1]}, rest...))
	if err != nil {
		return &ParseError{Line: p.line, Err: err}
	}
	r.Line = p.line
	if err := p.checkFamily(r); err != nil {
		return err
	}
	c, err := p.ruleChain(r.Chain)
	if err != nil {
		return err
	}
	if pos > len(c.Rules)+1 {
		return lineErrorf(p.line, "-I %s %d: index of insertion too big (the chain has %d rule(s))", c.Name, pos, len(c.Rules))
	}
	c.Rules = slices.Insert(c.Rules, pos-1, r)
	return nil
}

// ruleChain returns the chain a rule is added to, creating an undeclared
// built-in chain.
func (p *dumpParser) ruleChain(name string) (*Chain, error) {
	c := p.table.Chain(name)
	if c == nil && IsBuiltinChain(p.table.Name, name) {
		c = &Chain{Name: name, Policy: "ACCEPT", Implicit: true, Line: p.line}
		p.table.AddChain(c)
	}
	switch {
	case c == nil:
		return nil, lineErrorf(p.line, "rule for undeclared chain %q in table %s", name, p.table.Name)
	case c.Deleted:
		return nil, lineErrorf(p.line, "rule for chain %q in table %s after -X", name, p.table.Name)
	}
	return c, nil
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
