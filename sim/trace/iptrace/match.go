package iptrace

import (
	"encoding/binary"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
)

// pktState is the packet as a branch sees it.
type pktState struct {
	src, dst     netip.Addr
	src4, dst4   uint32
	is4          bool
	proto        uint8
	sport, dport uint16
	mark         uint32
	dnat         bool // DNAT happened (conntrack state DNAT)
	dstLocal     bool // dst is a local address (kept up to date on DNAT)
	untracked    bool // raw CT --notrack / NOTRACK matched
	established  bool // a later packet of the connection (nat is not consulted)
	fromHost     bool // sent by a host process (OUTPUT)
	looped       bool // a host process's packet to a local address, back in on lo
	tcpFlags     uint8

	// The interfaces at the current stage; known is false when the user did
	// not say (a -i/-o match is then undecided).
	in, out           string
	inKnown, outKnown bool
	// What the user said (trace.Packet.InIface and OutIface).
	givenIn, givenOut string
}

func addr4(a netip.Addr) uint32 {
	b := a.As4()
	return binary.BigEndian.Uint32(b[:])
}

// addrMatch is -s or -d: IPv4 as a masked compare, IPv6 through v6.
type addrMatch struct {
	addr, mask   uint32
	set, neg, v4 bool
	v6           *netip.Prefix
}

func compileAddr(m iptables.AddrMatch) addrMatch {
	if !m.Set {
		return addrMatch{}
	}
	a := addrMatch{set: true, neg: m.Negated}
	if !m.Prefix.Addr().Is4() {
		p := m.Prefix
		a.v6 = &p
		return a
	}
	a.v4 = true
	a.addr = addr4(m.Prefix.Addr())
	if bits := m.Prefix.Bits(); bits > 0 {
		a.mask = ^uint32(0) << (32 - bits)
	}
	return a
}

// dstMatches evaluates -d.
func (r *compiledRule) dstMatches(p *pktState) bool {
	var in bool
	if p.is4 {
		in = r.flags&flagDstV4 != 0 && p.dst4&r.dstMask == r.dstAddr
	} else {
		in = r.flags&flagDstV4 == 0 && r.dst.v6.Contains(p.dst)
	}
	return in != (r.flags&flagDstNeg != 0)
}

// srcMatches evaluates -s.
func (r *compiledRule) srcMatches(p *pktState) bool {
	var in bool
	if p.is4 {
		in = r.flags&flagSrcV4 != 0 && p.src4&r.srcMask == r.srcAddr
	} else {
		in = r.flags&flagSrcV4 == 0 && r.src.v6.Contains(p.src)
	}
	return in != (r.flags&flagSrcNeg != 0)
}

// isHost reports whether m matches exactly one address, not negated.
func (m *addrMatch) isHost() bool {
	if !m.set || m.neg {
		return false
	}
	if m.v4 {
		return m.mask == ^uint32(0)
	}
	return m.v6.IsSingleIP()
}

// protoMatch is -p.
type protoMatch struct {
	set, neg, any bool
	num           uint8
}

var protoNumbers = map[string]uint8{
	"tcp": 6, "udp": 17, "sctp": 132, "icmp": 1, "ipv6-icmp": 58, "udplite": 136, "dccp": 33,
	"gre": 47, "esp": 50, "ah": 51,
}

func compileProto(p iptables.ProtoMatch, why []string) (protoMatch, []string) {
	if !p.Set {
		return protoMatch{}, why
	}
	if p.Name == "all" {
		return protoMatch{set: true, neg: p.Negated, any: true}, why
	}
	n, ok := protoNumbers[p.Name]
	if !ok {
		return protoMatch{}, append(why, "-p "+p.Name)
	}
	return protoMatch{set: true, neg: p.Negated, num: n}, why
}

// protoMatches evaluates -p.
func (r *compiledRule) protoMatches(proto uint8) bool {
	return (r.flags&flagProtoAny != 0 || r.proto == proto) != (r.flags&flagProtoNeg != 0)
}

// portMatch is --sport or --dport.
type portMatch struct {
	set, neg bool
	lo, hi   uint16
}

func compilePort(p iptables.PortMatch) portMatch {
	return portMatch{set: p.Set, neg: p.Negated, lo: p.Lo, hi: p.Hi}
}

func (m *portMatch) matches(port uint16) bool {
	return (port >= m.lo && port <= m.hi) != m.neg
}

// Address types as addrtype sees them.
const (
	typeLocal uint8 = 1 << iota
	typeUnicast
	typeMulticast
	typeBroadcast
)

var addrTypes = map[string]uint8{"LOCAL": typeLocal, "UNICAST": typeUnicast, "MULTICAST": typeMulticast, "BROADCAST": typeBroadcast}

// addrTypeMatch is -m addrtype.
type addrTypeMatch struct {
	srcSet, srcNeg, dstSet, dstNeg bool
	src, dst                       uint8
}

func compileAddrType(m *iptables.AddrTypeMatch, why []string) (addrTypeMatch, []string) {
	if m == nil {
		return addrTypeMatch{}, why
	}
	if m.LimitIfaceIn || m.LimitIfaceOut {
		why = append(why, "addrtype --limit-iface-in/out")
	}
	var a addrTypeMatch
	var ok bool
	if m.SrcType != "" {
		a.srcSet, a.srcNeg = true, m.SrcNegated
		if a.src, ok = typeMask(m.SrcType); !ok {
			why = append(why, "--src-type "+m.SrcType)
		}
	}
	if m.DstType != "" {
		a.dstSet, a.dstNeg = true, m.DstNegated
		if a.dst, ok = typeMask(m.DstType); !ok {
			why = append(why, "--dst-type "+m.DstType)
		}
	}
	return a, why
}

func typeMask(list string) (uint8, bool) {
	var mask uint8
	for _, t := range strings.Split(list, ",") {
		bit, ok := addrTypes[t]
		if !ok {
			return 0, false
		}
		mask |= bit
	}
	return mask, true
}

// markMatch is -m mark --mark value/mask.
type markMatch struct {
	set, neg    bool
	value, mask uint32
}

// Conntrack states.
const (
	ctNew uint8 = 1 << iota
	ctEstablished
	ctRelated
	ctInvalid
	ctUntracked
	ctSNAT
	ctDNAT
)

var ctBits = map[string]uint8{
	"NEW": ctNew, "ESTABLISHED": ctEstablished, "RELATED": ctRelated, "INVALID": ctInvalid,
	"UNTRACKED": ctUntracked, "SNAT": ctSNAT, "DNAT": ctDNAT,
}

// ctMatch is -m conntrack --ctstate or -m state --state.
type ctMatch struct {
	set, neg bool
	mask     uint8
}

func compileCTState(m *iptables.CTStateMatch) ctMatch {
	if m == nil {
		return ctMatch{}
	}
	c := ctMatch{set: true, neg: m.Negated}
	for _, s := range m.States {
		c.mask |= ctBits[s]
	}
	return c
}

// recentMatch is -m recent.
type recentMatch struct {
	kind uint8 // recentNone, recentSet or recentCheck (--rcheck, --update, --remove)
	neg  bool
	name string
}

const (
	recentNone uint8 = iota
	recentSet
	recentCheck
)

func compileRecent(m *iptables.RecentMatch) recentMatch {
	switch {
	case m == nil:
		return recentMatch{}
	case m.Set:
		return recentMatch{kind: recentSet, neg: m.Negated, name: m.Name}
	}
	return recentMatch{kind: recentCheck, neg: m.Negated, name: m.Name}
}

// statMatch is -m statistic --mode random.
type statMatch struct {
	random    bool
	effective float64 // match probability the kernel applies (negation included)
	nominal   float64 // the same as written
}

func compileStatistic(m *iptables.StatisticMatch, why []string) (statMatch, []string) {
	switch {
	case m == nil:
		return statMatch{}, why
	case m.Mode != "random":
		return statMatch{}, append(why, "statistic --mode nth")
	}
	return statMatch{random: true, effective: m.Effective(), nominal: m.Nominal()}, why
}
