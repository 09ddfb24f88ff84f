package nfttrace

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/nftables"
)

// opKind is what a compiled expression does.
type opKind uint8

const (
	opMatchAddr opKind = iota
	opMatchSet
	opMatchProto
	opMatchPort
	opMatchMark
	opMatchConst // a match whose result is known at compile time (ct state)
	opMatchFib
	opVmap
	opNumgen
	opVerdict
	opReject
	opDNAT
	opMasquerade
	opMarkSet
	opSetUpdate
	opNoop
	opMatchCt    // ct state: value is a bit mask
	opMatchIface // iifname/oifname: names, a trailing * is a prefix
	opNotrack
	opUndecided // a match the tracer cannot decide (limit): the rest of the rule decides whether it matters
	// opUnmodelled is what the parser did not model (nftables.Unknown): it
	// swallowed the rest of the rule, verdict included, so a packet that
	// reaches it has an unknown verdict.
	opUnmodelled

	// kube-proxy v1.36+ (v137.go).
	opMatchCtStatus // ct status: value is a bit mask
	opNumgenDNAT    // dnat to numgen … map: one target per generated value
)

// op is one compiled expression. Only the fields of its kind are set.
type op struct {
	kind     opKind
	neg      bool
	field    field
	fields   []field
	prefixes []netip.Prefix
	protos   []uint8
	ports    []uint16
	mask     uint32
	value    uint32
	set      *cset
	verdict  *verdict
	entries  []*verdict // numgen: one per generated value
	addr     netip.Addr
	port     uint16
	markOp   string
	constant bool
	note     string   // path note, computed once
	notes    []string // numgen: one path note per generated value
	family   uint8    // 4 or 6 for an ip/ip6 selector: other packets never match
	names    []string // iface names
	fibTypes []string // fib ... type values

	// targets are a numgen DNAT's destinations, one per generated value.
	targets []natTarget
}

// compileExpr turns a parsed expression into an op.
func (c *compiler) compileExpr(x nftables.Expr) (op, error) {
	switch e := x.(type) {
	case nftables.Match:
		if isCtStatus(e) {
			return compileCtStatus(e)
		}
		return c.compileMatch(e)
	case nftables.NumgenNAT:
		return compileNumgenNAT(e)
	case nftables.VerdictMap:
		return c.compileVmap(e)
	case nftables.Numgen:
		return c.compileNumgen(e)
	case nftables.Verdict:
		v, err := resolveVerdict(e, c.chains)
		return op{kind: opVerdict, verdict: v}, err
	case nftables.Reject:
		return op{kind: opReject}, nil
	case nftables.NAT:
		if e.Kind != "dnat" {
			return op{}, fmt.Errorf("%s to %s is not supported", e.Kind, e.Addr)
		}
		note := "dnat to " + e.Addr.String()
		if e.Port != 0 {
			note = "dnat to " + netip.AddrPortFrom(e.Addr, e.Port).String()
		}
		return op{kind: opDNAT, addr: e.Addr, port: e.Port, note: note}, nil
	case nftables.Masquerade:
		return op{kind: opMasquerade}, nil
	case nftables.MarkSet:
		return op{kind: opMarkSet, markOp: e.Op, value: e.Value, note: fmt.Sprintf("mark %s %#x", e.Op, e.Value)}, nil
	case nftables.SetUpdate:
		s := c.sets[e.Set]
		if s == nil {
			return op{}, fmt.Errorf("set %s does not exist", e.Set)
		}
		return op{kind: opSetUpdate, set: s, note: "client recorded in @" + s.name}, nil
	case nftables.Counter, nftables.NamedCounter, nftables.Log:
		return op{kind: opNoop}, nil
	case nftables.Notrack:
		return op{kind: opNotrack, note: "notrack"}, nil
	case nftables.Limit:
		return op{kind: opUndecided, note: "limit rate " + e.Rate + " (depends on earlier traffic)"}, nil
	case nftables.Unknown:
		return op{kind: opUnmodelled, note: fmt.Sprintf("%q is not modelled", strings.Join(e.Tokens, " "))}, nil
	}
	return op{}, fmt.Errorf("expression %T is not supported by the tracer", x)
}

// compileMatch compiles a comparison of one field or a concatenation.
func (c *compiler) compileMatch(m nftables.Match) (op, error) {
	fields, err := fieldsOf(m.Left)
	if err != nil {
		return op{}, err
	}
	o := op{neg: m.Op == "!=", field: fields[0], fields: fields, family: selectorFamily(m.Left)}
	if m.Right.SetRef != "" {
		s := c.sets[m.Right.SetRef]
		if s == nil {
			return op{}, fmt.Errorf("set %s does not exist", m.Right.SetRef)
		}
		if !compatible(fields, s.fields) {
			return op{}, fmt.Errorf("set %s does not fit key %v", s.name, m.Left)
		}
		o.kind, o.set = opMatchSet, s
		return o, nil
	}
	if len(fields) > 1 {
		return op{}, fmt.Errorf("concatenation %v compared with a literal is not supported", m.Left)
	}
	values := m.Right.Literals
	if len(m.Right.Anon) > 0 {
		values = m.Right.Anon
	}
	return compileLiteralMatch(o, m, values)
}

// compileLiteralMatch fills o for a single field compared with values.
func compileLiteralMatch(o op, m nftables.Match, values []string) (op, error) {
	for _, v := range values {
		switch o.field {
		case fieldSrc, fieldDst:
			p, err := parsePrefix(v)
			if err != nil {
				return op{}, err
			}
			o.kind, o.prefixes = opMatchAddr, append(o.prefixes, p)
		case fieldProto:
			n, err := protoNumber(v)
			if err != nil {
				return op{}, err
			}
			o.kind, o.protos = opMatchProto, append(o.protos, n)
		case fieldDPort:
			n, err := strconv.ParseUint(v, 10, 16)
			if err != nil {
				return op{}, fmt.Errorf("port %q: %w", v, err)
			}
			o.kind, o.ports = opMatchPort, append(o.ports, uint16(n))
		case fieldMark:
			n, err := strconv.ParseUint(v, 0, 32)
			if err != nil || len(values) > 1 {
				return op{}, fmt.Errorf("mark value %q is not supported", v)
			}
			o.kind, o.value, o.mask = opMatchMark, uint32(n), 0xffffffff
			if m.HasMask {
				o.mask = m.Mask
			}
		case fieldCtState:
			b, ok := ctStateBits[v]
			if !ok {
				return op{}, fmt.Errorf("ct state %q is not supported", v)
			}
			o.kind, o.value = opMatchCt, o.value|b
		case fieldFibSrc, fieldFibDst:
			switch v {
			case "local", "unicast", "broadcast", "multicast":
			default:
				return op{}, fmt.Errorf("fib type %q is not supported", v)
			}
			o.kind, o.fibTypes = opMatchFib, append(o.fibTypes, v)
		case fieldIIf, fieldOIf:
			o.kind, o.names = opMatchIface, append(o.names, strings.Trim(v, `"`))
		}
	}
	if len(values) == 0 {
		return op{}, fmt.Errorf("match %v without a value", m.Left)
	}
	return o, nil
}

// parsePrefix reads an address or a CIDR.
func parsePrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	return p.Masked(), err
}

// fieldsOf maps selectors to fields.
func fieldsOf(sels []nftables.Selector) ([]field, error) {
	var out []field
	for _, s := range sels {
		f, err := fieldOf(s)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// compileVmap compiles "KEY vmap @map" or an anonymous verdict map.
func (c *compiler) compileVmap(v nftables.VerdictMap) (op, error) {
	fields, err := fieldsOf(v.Key)
	if err != nil {
		return op{}, err
	}
	if err := keyFits(fields); err != nil {
		return op{}, err
	}
	if v.MapRef != "" {
		s := c.sets[v.MapRef]
		if s == nil {
			return op{}, fmt.Errorf("map %s does not exist", v.MapRef)
		}
		if !compatible(fields, s.fields) {
			return op{}, fmt.Errorf("map %s does not fit key %v", s.name, v.Key)
		}
		return op{kind: opVmap, fields: fields, set: s}, nil
	}
	s := &cset{name: "(anonymous)", fields: fields, exact: map[key]*verdict{}}
	for _, e := range v.Anon {
		k, err := keyOfText(splitConcat(e.Key), fields)
		if err != nil {
			return op{}, err
		}
		v, err := resolveVerdict(e.Verdict, c.chains)
		if err != nil {
			return op{}, err
		}
		v.note = "vmap → " + v.kind + " " + v.name
		s.exact[k] = v
	}
	return op{kind: opVmap, fields: fields, set: s}, nil
}

// compileNumgen compiles "numgen random mod N [offset K] vmap { … }".
func (c *compiler) compileNumgen(n nftables.Numgen) (op, error) {
	if n.Mode != "random" {
		return op{}, fmt.Errorf("numgen %s is not supported", n.Mode)
	}
	byValue := map[int]*verdict{}
	for _, e := range n.Map {
		i, err := strconv.Atoi(e.Key)
		if err != nil {
			return op{}, fmt.Errorf("numgen map key %q: %w", e.Key, err)
		}
		if byValue[i], err = resolveVerdict(e.Verdict, c.chains); err != nil {
			return op{}, err
		}
	}
	o := op{kind: opNumgen, entries: make([]*verdict, n.Mod), notes: make([]string, n.Mod)}
	for i := range o.entries {
		v := byValue[n.Offset+i]
		o.entries[i] = v
		o.notes[i] = fmt.Sprintf("numgen %d of %d (p=1/%d)", i, n.Mod, n.Mod)
		if v != nil {
			o.notes[i] += " → " + v.kind + " " + v.name
		}
	}
	return o, nil
}

// splitConcat splits "a . b" into its parts.
func splitConcat(s string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if s[i] == ' ' && s[i+1] == '.' && s[i+2] == ' ' {
			out = append(out, s[start:i])
			start = i + 3
		}
	}
	return append(out, s[start:])
}

// selectorFamily is 4 or 6 when a selector reads an IPv4 or IPv6 header
// (nft adds a "meta nfproto" dependency), else 0.
func selectorFamily(sels []nftables.Selector) uint8 {
	for _, s := range sels {
		switch {
		case strings.HasPrefix(string(s), "ip6 "):
			return 6
		case strings.HasPrefix(string(s), "ip "):
			return 4
		}
	}
	return 0
}
