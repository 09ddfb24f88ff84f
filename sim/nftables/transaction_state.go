package nftables

import (
	"fmt"
	"sort"
	"strings"
)

// TransactionState is the state a sequence of nft transactions leaves in
// its tables, kept as text the way knftables' Fake keeps it, so that the
// final state of a transaction compares to kube-proxy's expected dumps
// (its tests' nft.Dump()) after SortTransaction. Unlike Parse, it does not
// parse rule bodies: every object, rule and element is kept as the line
// that added it.
//
// It knows the command forms knftables writes, one per line:
//
//	add|create|delete|destroy table FAMILY TABLE [{ … }]
//	add|create|flush|delete|destroy chain|set|map FAMILY TABLE NAME [{ … }]
//	add|create|delete|destroy counter FAMILY TABLE NAME [{ … }]
//	add|insert rule FAMILY TABLE CHAIN RULE
//	add|create|delete|destroy element FAMILY TABLE SET { KEY [comment "…"] [: VALUE] }
//
// Empty lines and "#" comment lines are skipped. As in knftables' Fake,
// adding an object that exists is a no-op, re-adding an element replaces
// it in place (its comment; its value must be the same), a rule may only name sets and
// maps (@name) and chains (jump, goto) that exist, and a failed
// transaction leaves the state as it was. As in the kernel, and stricter
// than the Fake, deleting a missing object or element, a chain that still
// has rules or is jumped to, or a set or map a rule still names fails, and
// so does re-adding an element with another value.
//
// The zero value is an empty state, ready to use.
type TransactionState struct {
	tables map[string]*txTable // "FAMILY TABLE" → table
}

// Apply runs one transaction, atomically: on an error (which names the
// line, counted from 1, and the object) the state is unchanged.
func (s *TransactionState) Apply(tx string) error {
	next := s.clone()
	for n, line := range strings.Split(tx, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := next.line(line); err != nil {
			return fmt.Errorf("line %d %q: %w", n+1, line, err)
		}
	}
	s.tables = next.tables
	return nil
}

// Dump writes the state as knftables' Fake.Dump does: for each table, by
// family and name, its add line, then every chain, set, map and counter
// (each kind by name) as its add line, then every chain's rules in order,
// then the elements of every set and then of every map, each in the order
// they were added. The dump is itself a transaction that rebuilds the
// state in an empty one.
func (s *TransactionState) Dump() string {
	ids := make([]string, 0, len(s.tables))
	for id := range s.tables {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		s.tables[id].dump(&b)
	}
	return b.String()
}

// clone is a copy of s that shares no map or slice with it.
func (s *TransactionState) clone() *TransactionState {
	c := &TransactionState{tables: make(map[string]*txTable, len(s.tables))}
	for id, t := range s.tables {
		c.tables[id] = t.clone()
	}
	return c
}

// txCommand is one line of a transaction: "VERB KIND FAMILY TABLE [NAME
// [REST]]".
type txCommand struct {
	line, verb, kind, table, name, rest string
}

func parseTxCommand(line string) (txCommand, error) {
	w := strings.SplitN(line, " ", 6)
	if len(w) < 4 {
		return txCommand{}, fmt.Errorf("want VERB KIND FAMILY TABLE …")
	}
	switch w[2] {
	case "ip", "ip6", "inet", "arp", "bridge", "netdev":
	default:
		return txCommand{}, fmt.Errorf("unknown family %q (want ip, ip6, inet, arp, bridge or netdev)", w[2])
	}
	c := txCommand{line: line, verb: w[0], kind: w[1], table: w[2] + " " + w[3]}
	if len(w) > 4 {
		c.name = w[4]
	}
	if len(w) > 5 {
		c.rest = w[5]
	}
	if c.kind != "table" && (c.name == "" || strings.HasPrefix(c.name, "{")) {
		return txCommand{}, fmt.Errorf("%s command without a %s name", c.kind, c.kind)
	}
	return c, nil
}

// asAdd is the command's line with its verb replaced by "add", as the
// Fake dumps an object however it was created.
func (c txCommand) asAdd() string { return "add" + strings.TrimPrefix(c.line, c.verb) }

func (s *TransactionState) line(line string) error {
	c, err := parseTxCommand(line)
	if err != nil {
		return err
	}
	if c.kind == "table" {
		return s.tableCommand(c)
	}
	t := s.tables[c.table]
	if t == nil {
		return fmt.Errorf("no table %s (add it first)", c.table)
	}
	return t.command(c)
}

func (s *TransactionState) tableCommand(c txCommand) error {
	_, ok := s.tables[c.table]
	switch c.verb {
	case "add", "create":
		if ok && c.verb == "create" {
			return fmt.Errorf("table %s exists", c.table)
		}
		if !ok {
			if s.tables == nil {
				s.tables = map[string]*txTable{}
			}
			s.tables[c.table] = newTxTable(c.asAdd())
		}
	case "delete", "destroy":
		if !ok && c.verb == "delete" {
			return fmt.Errorf("delete of missing table %s", c.table)
		}
		delete(s.tables, c.table)
	default:
		return fmt.Errorf("unsupported command %q", c.verb+" table")
	}
	return nil
}
