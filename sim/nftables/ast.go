package nftables

import (
	"strings"
	"time"
)

// Ruleset is a parsed ruleset: its tables in creation order.
type Ruleset struct {
	Tables []*Table
}

// Table returns the table family/name, or nil.
func (rs *Ruleset) Table(family, name string) *Table {
	for _, t := range rs.Tables {
		if t.Family == family && t.Name == name {
			return t
		}
	}
	return nil
}

// Table is one nftables table.
type Table struct {
	Family  string // "ip", "ip6", "inet", ...
	Name    string
	Comment string
	Chains  []*Chain // creation order
	Sets    []*Set   // sets and maps, creation order
	// Counters are the named counter objects (`add counter T NAME`), in
	// creation order.
	Counters []string
	chains   map[string]*Chain
	sets     map[string]*Set
}

// Chain returns the named chain, or nil.
func (t *Table) Chain(name string) *Chain { return t.chains[name] }

// Set returns the named set or map, or nil.
func (t *Table) Set(name string) *Set { return t.sets[name] }

// Chain is a regular or base chain.
type Chain struct {
	Name string
	// Type and Hook are empty for a regular chain ("nat", "prerouting").
	Type, Hook string
	// Priority is the numeric priority; PriorityText is as written
	// ("-110", "dstnat - 10").
	Priority     int
	PriorityText string
	Policy       string // "accept" unless written otherwise (base chains)
	Comment      string
	Rules        []*Rule
	Line         int // where the chain was first declared
}

// IsBase reports whether the chain is attached to a netfilter hook.
func (c *Chain) IsBase() bool { return c.Hook != "" }

// Rule is one rule of a chain.
type Rule struct {
	Line    int
	Tokens  []string // the rule body, without its comment
	Comment string
	Exprs   []Expr // the body as recognised expressions, in order
}

// Text returns the rule body as a single space-separated string.
func (r *Rule) Text() string { return strings.Join(r.Tokens, " ") }

// Set is a named set or map.
type Set struct {
	Name  string
	IsMap bool
	// KeyType is the key's type, one entry per concatenated field
	// ("ipv4_addr", "inet_proto", "inet_service").
	KeyType []string
	// DataType is a map's value type ("verdict" for a verdict map).
	DataType string
	Flags    []string
	Timeout  time.Duration
	Size     int
	Comment  string
	Elements []Element
	Line     int
	index    map[string]int // canonical key → position in Elements
}

// Element is one element of a set or map.
type Element struct {
	Key     []string // one entry per concatenated field, e.g. ["172.30.0.43" "tcp" "80"]
	Value   []string // a map element's value tokens, e.g. ["goto" "service-…"]
	Comment string
	Timeout time.Duration
	Expires time.Duration
}

// KeyString is the key as nft writes it ("a . b . c").
func (e Element) KeyString() string { return strings.Join(e.Key, " . ") }

// Verdict returns a verdict-map element's value as a Verdict.
func (e Element) Verdict() (Verdict, bool) { return verdictOf(e.Value) }
