package verifytrace

import (
	"math/rand/v2"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
)

// pool is what random packets are drawn from: the addresses and ports the
// dump mentions, plus a few of the topology's own.
type pool struct {
	ipv6       bool // the dump's family is IPv6
	node       netip.Addr
	srcs, dsts []netip.Addr
	ports      []uint16
	marks      []uint32
	ifaces     []string // eth0 and the dump's interfaces
	local      map[netip.Addr]bool
}

func newPool(d *iptables.Dump, m Meta, sets ipvs.IPSets) *pool {
	p := &pool{ipv6: m.IPv6, node: m.nodeAddr(), local: map[netip.Addr]bool{m.nodeAddr(): true}}
	for _, a := range m.Local {
		p.local[a] = true
	}
	p.srcs = []netip.Addr{ClientAddr, netip.MustParseAddr("10.244.1.5"), netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("198.51.100.7")}
	p.dsts = append([]netip.Addr{NodeAddr, netip.MustParseAddr("10.1.2.3")}, m.Local...)
	if m.IPv6 {
		p.srcs = []netip.Addr{ClientAddr6, netip.MustParseAddr("fd00:10:244:1::5"), netip.MustParseAddr("2001:db8::9")}
		p.dsts = append([]netip.Addr{NodeAddr6, netip.MustParseAddr("fd00:1:2::3")}, m.Local...)
	}
	p.ports = []uint16{53, 80, 443, 8080, 10250, 30080}
	p.marks = []uint32{0}
	p.ifaces = append([]string{"eth0"}, m.Ifaces...)
	for _, t := range d.Tables {
		for _, c := range t.Chains {
			for _, r := range c.Rules {
				p.addRule(r)
			}
		}
	}
	for _, set := range sets {
		p.addSet(set)
	}
	p.prune()
	return p
}

// prune drops addresses no packet can carry: sources that are the node's
// own (a martian from outside), loopback, multicast and the like.
func (p *pool) prune() {
	p.srcs = slices.DeleteFunc(p.srcs, func(a netip.Addr) bool { return !p.usable(a) || p.local[a] })
	p.dsts = slices.DeleteFunc(p.dsts, func(a netip.Addr) bool { return !p.usable(a) })
}

func (p *pool) addRule(r *iptables.Rule) {
	if r.Source.Set {
		p.srcs = append(p.srcs, hostIn(r.Source.Prefix))
	}
	if r.Destination.Set {
		p.dsts = append(p.dsts, hostIn(r.Destination.Prefix))
	}
	for _, pm := range []iptables.PortMatch{r.DestPort, r.SourcePort} {
		if pm.Set {
			p.ports = append(p.ports, pm.Lo, pm.Hi)
		}
	}
	for _, mp := range r.MultiPorts {
		for _, rg := range mp.Ranges {
			p.ports = append(p.ports, rg[0])
		}
	}
	if r.Mark != nil {
		p.marks = append(p.marks, r.Mark.Value, r.Mark.Value|^r.Mark.Mask&0x0f0f0f0f)
	}
	if r.NAT != nil && r.NAT.Addr.IsValid() {
		p.dsts = append(p.dsts, r.NAT.Addr.Addr())
		if r.NAT.Addr.Port() != 0 {
			p.ports = append(p.ports, r.NAT.Addr.Port())
		}
	}
}

// addSet adds a set's addresses (as destinations and sources) and ports.
func (p *pool) addSet(s *ipvs.IPSet) {
	for _, m := range s.Members {
		for i, part := range m.Parts {
			switch s.Dims[i] {
			case "ip", "net":
				a := hostIn(part.Prefix)
				p.dsts, p.srcs = append(p.dsts, a), append(p.srcs, a)
			case "port":
				p.ports = append(p.ports, part.Lo)
			}
		}
	}
}

// hostIn returns the prefix's address, or its first host for a network.
func hostIn(pr netip.Prefix) netip.Addr {
	a := pr.Addr()
	if pr.Bits() < a.BitLen() {
		a = a.Next()
	}
	return a
}

// usable reports whether a packet of the pool's family can carry a.
func (p *pool) usable(a netip.Addr) bool {
	if a.Is4() == p.ipv6 || a.IsLinkLocalUnicast() {
		return false
	}
	return !a.IsLoopback() && !a.IsMulticast() && !a.IsUnspecified() && a != netip.AddrFrom4([4]byte{255, 255, 255, 255})
}

// draw returns a random packet; sport makes every packet a new flow.
func (p *pool) draw(rng *rand.Rand, sport uint16) Packet {
	pkt := Packet{Proto: "tcp", SPort: sport, DPort: p.ports[rng.IntN(len(p.ports))], Dst: p.dsts[rng.IntN(len(p.dsts))]}
	if rng.IntN(2) == 0 {
		pkt.Proto = "udp"
	}
	if rng.IntN(4) == 0 {
		pkt.FromNode, pkt.Src = true, p.node
		if rng.IntN(2) == 0 {
			pkt.Mark = p.marks[rng.IntN(len(p.marks))]
		}
	} else {
		pkt.Src = p.srcs[rng.IntN(len(p.srcs))]
		pkt.InIface = p.ifaces[rng.IntN(len(p.ifaces))]
	}
	return pkt
}
