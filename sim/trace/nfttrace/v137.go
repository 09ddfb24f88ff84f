package nfttrace

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/nftables"
)

// What kube-proxy v1.36+ writes and v1.35 did not: a service chain that
// DNATs through a numgen-indexed map of endpoints, and the hairpin
// masquerade rule matching "ct status dnat".

// Conntrack status bits as nft names them (enum ip_conntrack_status).
const (
	ctStatusExpected  uint32 = 1 << 0
	ctStatusSeenReply uint32 = 1 << 1
	ctStatusAssured   uint32 = 1 << 2
	ctStatusConfirmed uint32 = 1 << 3
	ctStatusSNAT      uint32 = 1 << 4
	ctStatusDNAT      uint32 = 1 << 5
)

var ctStatusBits = map[string]uint32{
	"expected": ctStatusExpected, "seen-reply": ctStatusSeenReply, "assured": ctStatusAssured,
	"confirmed": ctStatusConfirmed, "snat": ctStatusSNAT, "dnat": ctStatusDNAT,
}

// compileCtStatus compiles "ct status [!=] FLAG[,FLAG…]": true when the
// connection has any of the flags.
func compileCtStatus(m nftables.Match) (op, error) {
	values := m.Right.Literals
	if len(m.Right.Anon) > 0 {
		values = m.Right.Anon
	}
	if len(values) == 0 || m.HasMask || m.Right.SetRef != "" {
		return op{}, fmt.Errorf("ct status match %v is not supported", m.Right)
	}
	o := op{kind: opMatchCtStatus, neg: m.Op == "!="}
	for _, v := range values {
		b, ok := ctStatusBits[v]
		if !ok {
			return op{}, fmt.Errorf("ct status %q is not supported", v)
		}
		o.value |= b
	}
	return o, nil
}

// isCtStatus reports whether m is a "ct status" match.
func isCtStatus(m nftables.Match) bool {
	return len(m.Left) == 1 && m.Left[0] == "ct status"
}

// ctStatus is the status of the packet's connection as far as the tracer
// knows it: the first packet of a new connection is unconfirmed and has
// the NAT bits of the NAT done to it so far; an established one is
// confirmed and has seen a reply.
func (st *state) ctStatus() uint32 {
	var s uint32
	if st.established {
		s |= ctStatusConfirmed | ctStatusSeenReply
	}
	if st.dnat.IsValid() {
		s |= ctStatusDNAT
	}
	if st.masq {
		s |= ctStatusSNAT
	}
	return s
}

// compileNumgenNAT compiles "dnat ip addr . port to numgen random mod N map
// { … }" (or "dnat ip6 …", IPv6 endpoints): one DNAT target per generated
// value (invalid where the map has no entry).
func compileNumgenNAT(n nftables.NumgenNAT) (op, error) {
	if n.Kind != "dnat" || n.Mode != "random" {
		return op{}, fmt.Errorf("%s to numgen %s is not supported", n.Kind, n.Mode)
	}
	byValue := make(map[int]nftables.NATTarget, len(n.Targets))
	for _, t := range n.Targets {
		if !t.Addr.IsValid() || t.Addr.Is4() != n.Targets[0].Addr.Is4() {
			return op{}, fmt.Errorf("dnat to %s is not supported (a numgen map's addresses must be all IPv4 or all IPv6)", t.Addr)
		}
		byValue[t.Key] = t
	}
	o := op{kind: opNumgenDNAT, targets: make([]natTarget, n.Mod), notes: make([]string, n.Mod)}
	for i := range o.targets {
		o.notes[i] = fmt.Sprintf("numgen %d of %d (p=1/%d)", i, n.Mod, n.Mod)
		t, ok := byValue[n.Offset+i]
		if !ok {
			o.notes[i] += " → no map entry"
			continue
		}
		o.targets[i] = natTarget{addr: t.Addr, port: t.Port, ok: true}
		o.notes[i] += " → " + dnatNote(t.Addr, t.Port)
	}
	return o, nil
}

// natTarget is one DNAT destination of a numgen map; port 0 keeps the
// packet's port.
type natTarget struct {
	addr netip.Addr
	port uint16
	ok   bool
}

// dnatNote is the path note of a DNAT.
func dnatNote(a netip.Addr, port uint16) string {
	if port == 0 {
		return "dnat to " + a.String()
	}
	return "dnat to " + netip.AddrPortFrom(a, port).String()
}

// dnat rewrites st's destination as a DNAT statement does.
func (st *state) dnatTo(a netip.Addr, port uint16) {
	if port == 0 {
		port = st.dport
	}
	st.dnat = netip.AddrPortFrom(a, port)
	st.dst, st.dport = a, port
}

// forkNumgenNAT continues each numgen value of a numgen DNAT map with
// probability 1/N (NumgenEffective as the kernel draws it): DNATed, the
// nat base chain accepts; without a map entry the rule does not match and
// the chain goes on.
func (tr *tracer) forkNumgenNAT(st *state, stack []frame, policy string, o *op, done func(*state, string) error) error {
	n := len(o.targets)
	for i, t := range o.targets {
		b := st.clone()
		b.prob /= float64(n)
		b.eff *= NumgenEffective(i, n)
		if len(b.path) > 0 {
			b.path[len(b.path)-1].Note = o.notes[i]
		}
		var err error
		if t.ok {
			b.dnatTo(t.addr, t.port)
			err = done(b, "accept")
		} else {
			err = tr.run(b, append([]frame(nil), stack...), policy, done)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
