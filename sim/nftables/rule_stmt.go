package nftables

import (
	"net/netip"
	"strconv"
)

// numgen reads "numgen random|inc mod N [offset K] vmap { … }".
func (rp *ruleParser) numgen() (Expr, error) {
	mode := rp.at(1).text
	if (mode != "random" && mode != "inc") || !rp.at(2).is("mod") {
		return rp.unknown(), nil
	}
	mod, err := strconv.Atoi(rp.at(3).text)
	if err != nil || mod <= 0 {
		return nil, errorf(rp.line, "numgen: bad modulus %q", rp.at(3).text)
	}
	rp.i += 4
	n := Numgen{Mode: mode, Mod: mod}
	if rp.at(0).is("offset") {
		off, err := strconv.Atoi(rp.at(1).text)
		if err != nil {
			return nil, errorf(rp.line, "numgen: bad offset %q", rp.at(1).text)
		}
		n.Offset = off
		rp.i += 2
	}
	if !rp.at(0).is("vmap") || !rp.at(1).is("{") {
		return nil, errorf(rp.line, "numgen without an anonymous vmap")
	}
	rp.i++
	if n.Map, err = rp.mapEntries(); err != nil {
		return nil, err
	}
	return n, nil
}

// nat reads "dnat|snat [ip] to ADDR[:PORT]", or a numgen map (see NumgenNAT).
func (rp *ruleParser) nat() (Expr, error) {
	kind := rp.at(0).text
	rp.i++
	if rp.at(0).is("ip") {
		rp.i++
		rp.skipAddrPort()
	}
	if !rp.at(0).is("to") {
		return nil, errorf(rp.line, "%s without \"to\"", kind)
	}
	if rp.at(1).is("numgen") {
		rp.i++
		return rp.numgenNAT(kind)
	}
	target := rp.at(1).text
	rp.i += 2
	if ap, err := netip.ParseAddrPort(target); err == nil {
		return NAT{Kind: kind, Addr: ap.Addr(), Port: ap.Port()}, nil
	}
	if a, err := netip.ParseAddr(target); err == nil {
		return NAT{Kind: kind, Addr: a}, nil
	}
	return nil, errorf(rp.line, "%s to %q: not an address", kind, target)
}

// setUpdate reads "update|add @set { sel [. sel] }".
func (rp *ruleParser) setUpdate() (Expr, error) {
	u := SetUpdate{Op: rp.at(0).text, Set: rp.at(1).text[1:]}
	rp.i += 2
	if !rp.at(0).is("{") {
		return nil, errorf(rp.line, "%s @%s: missing {", u.Op, u.Set)
	}
	rp.i++
	key, ok := rp.concat()
	if !ok {
		return nil, errorf(rp.line, "%s @%s: bad key", u.Op, u.Set)
	}
	u.Key = key
	if rp.at(0).is("timeout") {
		rp.i += 2
	}
	if !rp.at(0).is("}") {
		return nil, errorf(rp.line, "%s @%s: missing }", u.Op, u.Set)
	}
	rp.i++
	return u, nil
}

// markSet reads "mark set mark or|xor|and X", its listing form
// "meta mark set meta mark |^& X", or "mark set X".
func (rp *ruleParser) markSet() (Expr, error) {
	if rp.at(0).is("meta") {
		rp.i++
	}
	rp.i += 2 // mark set
	if rp.at(0).is("meta") && rp.at(1).is("mark") {
		rp.i++
	}
	if rp.at(0).is("mark") {
		ops := map[string]string{"or": "or", "|": "or", "xor": "xor", "^": "xor", "and": "and", "&": "and"}
		op, ok := ops[rp.at(1).text]
		v, err := parseUint32(rp.at(2).text)
		if !ok || err != nil {
			return nil, errorf(rp.line, "mark set: bad expression")
		}
		rp.i += 3
		return MarkSet{Op: op, Value: v}, nil
	}
	v, err := parseUint32(rp.at(0).text)
	if err != nil {
		return nil, errorf(rp.line, "mark set: bad value %q", rp.at(0).text)
	}
	rp.i++
	return MarkSet{Op: "set", Value: v}, nil
}

// parseUint32 reads a decimal or 0x-prefixed number.
func parseUint32(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 0, 32)
	return uint32(v), err
}
