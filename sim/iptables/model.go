package iptables

// Counters are packet and byte counters, written "[packets:bytes]".
type Counters struct {
	Packets uint64
	Bytes   uint64
}

// Dump is a parsed iptables-save output or iptables-restore input: a list of
// tables in the order they appeared.
type Dump struct {
	Tables []*Table
}

// Table is one "*name ... COMMIT" block.
type Table struct {
	Name   string
	Chains []*Chain // in declaration order
	Line   int      // line of the "*name" header, 0 if built in code

	index map[string]*Chain
}

// Chain is a chain declared in a table, with its rules in order.
type Chain struct {
	Name string
	// Policy is "-" for a user-defined chain and ACCEPT or DROP for a
	// built-in chain.
	Policy   string
	Counters Counters
	Rules    []*Rule
	// Deleted is set by a "-X NAME" line; it appears only in restore input.
	Deleted bool
	// Implicit marks a built-in chain that restore input used without
	// declaring it (iptables-restore allows that). Its policy is left
	// alone, its rules are appended under --noflush, and the printer
	// writes no declaration for it.
	Implicit bool
	Line     int // line of the declaration, 0 if built in code
}

// builtinChains lists each table's built-in chains in the order
// iptables-save prints them.
var builtinChains = map[string][]string{
	"filter":   {"INPUT", "FORWARD", "OUTPUT"},
	"nat":      {"PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"},
	"mangle":   {"PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"},
	"raw":      {"PREROUTING", "OUTPUT"},
	"security": {"INPUT", "FORWARD", "OUTPUT"},
}

// KnownTable reports whether name is one of the tables iptables has.
func KnownTable(name string) bool {
	_, ok := builtinChains[name]
	return ok
}

// BuiltinChains returns the built-in chains of table in iptables-save order,
// or nil for an unknown table.
func BuiltinChains(table string) []string {
	return append([]string(nil), builtinChains[table]...)
}

// IsBuiltinChain reports whether chain is a built-in chain of table.
func IsBuiltinChain(table, chain string) bool {
	for _, c := range builtinChains[table] {
		if c == chain {
			return true
		}
	}
	return false
}

// Table returns the table called name, or nil.
func (d *Dump) Table(name string) *Table {
	for _, t := range d.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Chain returns the chain called name in table, or nil.
func (d *Dump) Chain(table, name string) *Chain {
	if t := d.Table(table); t != nil {
		return t.Chain(name)
	}
	return nil
}

// Chain returns the chain called name, or nil. Lookups use an index kept
// by AddChain and RemoveChain; call Reindex after editing Chains directly.
func (t *Table) Chain(name string) *Chain {
	if len(t.index) != len(t.Chains) {
		t.Reindex()
	}
	return t.index[name]
}

// Reindex rebuilds the name index after Chains was edited directly.
func (t *Table) Reindex() {
	t.index = make(map[string]*Chain, len(t.Chains))
	for _, c := range t.Chains {
		t.index[c.Name] = c
	}
}

// AddChain appends c to the table.
func (t *Table) AddChain(c *Chain) {
	if t.index == nil || len(t.index) != len(t.Chains) {
		t.Reindex()
	}
	t.Chains = append(t.Chains, c)
	t.index[c.Name] = c
}

// RemoveChain removes the chain called name, if present.
func (t *Table) RemoveChain(name string) {
	for i, c := range t.Chains {
		if c.Name == name {
			t.Chains = append(t.Chains[:i:i], t.Chains[i+1:]...)
			delete(t.index, name)
			return
		}
	}
}

// RuleCount returns the number of rules in the table's live chains.
func (t *Table) RuleCount() int {
	n := 0
	for _, c := range t.Chains {
		if !c.Deleted {
			n += len(c.Rules)
		}
	}
	return n
}

// Clone returns a copy of d whose tables and chains can be changed without
// affecting d. Rules are shared: they are treated as immutable.
func (d *Dump) Clone() *Dump {
	out := &Dump{Tables: make([]*Table, 0, len(d.Tables))}
	for _, t := range d.Tables {
		out.Tables = append(out.Tables, t.clone())
	}
	return out
}

func (t *Table) clone() *Table {
	nt := &Table{Name: t.Name, Line: t.Line, Chains: make([]*Chain, 0, len(t.Chains))}
	for _, c := range t.Chains {
		cc := *c
		cc.Rules = append([]*Rule(nil), c.Rules...)
		nt.Chains = append(nt.Chains, &cc)
	}
	nt.Reindex()
	return nt
}
