package nftables

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// NumgenNAT is the DNAT kube-proxy v1.36+ writes for a service with several
// endpoints and no session affinity:
//
//	dnat ip addr . port to numgen random mod 2 map { 0 : 10.0.0.1 . 80 , 1 : 10.0.0.2 . 80 }
//
// which nft lists as "dnat ip to numgen random mod 2 map { 0 : 10.0.0.1 . 80, … }".
// A map value without " . PORT" keeps the packet's port.
type NumgenNAT struct {
	Kind    string // "dnat" or "snat"
	Mode    string // "random" or "inc"
	Mod     int
	Offset  int
	Targets []NATTarget
}

// NATTarget is one entry of a NumgenNAT map: the generated number and the
// address (and port, 0 when absent) it selects.
type NATTarget struct {
	Key  int
	Addr netip.Addr
	Port uint16
}

func (NumgenNAT) isExpr() {}

// skipAddrPort skips the "addr . port" of "dnat ip addr . port to …" and
// reports whether it was there.
func (rp *ruleParser) skipAddrPort() bool {
	if rp.at(0).is("addr") && rp.at(1).is(".") && rp.at(2).is("port") && rp.at(3).is("to") {
		rp.i += 3
		return true
	}
	return false
}

// numgenNAT reads "numgen random|inc mod N [offset K] map { K : ADDR [. PORT], … }"
// after "dnat [ip] [addr . port] to".
func (rp *ruleParser) numgenNAT(kind string) (Expr, error) {
	mode := rp.at(1).text
	if (mode != "random" && mode != "inc") || !rp.at(2).is("mod") {
		return nil, errorf(rp.line, "%s to numgen: want random|inc mod N", kind)
	}
	mod, err := strconv.Atoi(rp.at(3).text)
	if err != nil || mod <= 0 {
		return nil, errorf(rp.line, "%s to numgen: bad modulus %q", kind, rp.at(3).text)
	}
	rp.i += 4
	n := NumgenNAT{Kind: kind, Mode: mode, Mod: mod}
	if rp.at(0).is("offset") {
		if n.Offset, err = strconv.Atoi(rp.at(1).text); err != nil {
			return nil, errorf(rp.line, "%s to numgen: bad offset %q", kind, rp.at(1).text)
		}
		rp.i += 2
	}
	if !rp.at(0).is("map") || !rp.at(1).is("{") {
		return nil, errorf(rp.line, "%s to numgen without an anonymous map", kind)
	}
	rp.i++
	elems, err := rp.braced()
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		t, err := natTarget(e)
		if err != nil {
			return nil, errorf(rp.line, "%s map entry %q: %v", kind, joinTokens(e), err)
		}
		n.Targets = append(n.Targets, t)
	}
	return n, nil
}

// natTarget reads "K : ADDR [. PORT]".
func natTarget(e []token) (NATTarget, error) {
	if len(e) != 3 && len(e) != 5 || !e[1].is(":") {
		return NATTarget{}, errors.New("want K : ADDR . PORT")
	}
	k, err := strconv.Atoi(e[0].text)
	if err != nil {
		return NATTarget{}, err
	}
	a, err := netip.ParseAddr(strings.Trim(e[2].text, "[]"))
	if err != nil {
		return NATTarget{}, err
	}
	t := NATTarget{Key: k, Addr: a}
	if len(e) == 5 {
		if !e[3].is(".") {
			return NATTarget{}, errors.New("want ADDR . PORT")
		}
		p, err := strconv.ParseUint(e[4].text, 10, 16)
		if err != nil {
			return NATTarget{}, err
		}
		t.Port = uint16(p)
	}
	return t, nil
}
