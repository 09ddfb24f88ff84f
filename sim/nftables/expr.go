package nftables

import "net/netip"

// Expr is one recognised part of a rule: a match or a statement.
type Expr interface{ isExpr() }

// Selector names a packet field as kube-proxy's rules use it, e.g.
// "ip saddr", "ip daddr", "meta l4proto", "th dport", "meta mark",
// "ct state", "fib saddr type", "fib daddr type".
type Selector string

// Match compares one field, or a concatenation of fields, with a value:
// "ip saddr != 10.0.0.0/8", "ip daddr @cluster-ips",
// "meta mark & 0x4000 == 0".
type Match struct {
	Left []Selector
	// Mask, when HasMask, is and-ed with the field first.
	Mask    uint32
	HasMask bool
	Op      string // "==" or "!="
	Right   Value
}

// Value is the right-hand side of a match: literals (an address, prefix,
// number or keyword, several for "new,established"), a named set
// reference, or an anonymous set.
type Value struct {
	Literals []string
	SetRef   string   // name without "@"
	Anon     []string // anonymous set elements ("a . b" for concatenations)
}

// VerdictMap is "KEY vmap @map" or "KEY vmap { k : verdict, … }".
type VerdictMap struct {
	Key    []Selector
	MapRef string
	Anon   []MapEntry
}

// Numgen is "numgen random mod N [offset K] vmap { 0 : goto A, … }".
type Numgen struct {
	Mode   string // "random" or "inc"
	Mod    int
	Offset int
	Map    []MapEntry
}

// MapEntry is one entry of an anonymous verdict map.
type MapEntry struct {
	Key     string
	Verdict Verdict
}

// Verdict is jump/goto CHAIN, or accept, drop, return, continue.
type Verdict struct {
	Kind  string
	Chain string // for jump and goto
}

// Reject is the reject statement; With is its optional "with …" part.
type Reject struct{ With string }

// NAT is "dnat to ADDR[:PORT]" or "snat to …".
type NAT struct {
	Kind string // "dnat" or "snat"
	Addr netip.Addr
	Port uint16 // 0 when absent
}

// Masquerade is "masquerade [fully-random|random|persistent…]".
type Masquerade struct{ Flags []string }

// MarkSet is "mark set mark or 0x4000" (also "meta mark set meta mark | X"),
// or "mark set X" (Op "set").
type MarkSet struct {
	Op    string // "or", "xor", "and" or "set"
	Value uint32
}

// SetUpdate is "update @set { ip saddr }" or "add @set { … }".
type SetUpdate struct {
	Op  string // "update" or "add"
	Set string
	Key []Selector
}

// Counter is "counter [packets N bytes M]".
type Counter struct{ Packets, Bytes uint64 }

// Log is the log statement (it does not change the packet's way).
type Log struct{ Prefix string }

// Limit is "limit rate [over] N/UNIT ...": whether it matches depends on
// the traffic before the packet.
type Limit struct {
	Over bool
	Rate string // "10/second burst 5 packets"
}

// Notrack is the notrack statement: conntrack leaves the packet alone.
type Notrack struct{}

// Unknown holds the tokens of a statement the parser does not model, to
// the end of the rule.
type Unknown struct{ Tokens []string }

func (Match) isExpr()      {}
func (VerdictMap) isExpr() {}
func (Numgen) isExpr()     {}
func (Verdict) isExpr()    {}
func (Reject) isExpr()     {}
func (NAT) isExpr()        {}
func (Masquerade) isExpr() {}
func (MarkSet) isExpr()    {}
func (SetUpdate) isExpr()  {}
func (Counter) isExpr()    {}
func (Log) isExpr()        {}
func (Limit) isExpr()      {}
func (Notrack) isExpr()    {}
func (Unknown) isExpr()    {}

// verdictOf reads a verdict from value tokens.
func verdictOf(v []string) (Verdict, bool) {
	switch {
	case len(v) == 2 && (v[0] == "jump" || v[0] == "goto"):
		return Verdict{Kind: v[0], Chain: v[1]}, true
	case len(v) == 1 && (v[0] == "accept" || v[0] == "drop" || v[0] == "return" || v[0] == "continue"):
		return Verdict{Kind: v[0]}, true
	}
	return Verdict{}, false
}
