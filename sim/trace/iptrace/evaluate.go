package iptrace

import (
	"fmt"
	"net/netip"
)

// matches evaluates every match of r, rule i of chain, except the statistic
// one, which fork handles. Undecidable rules do not match and are flagged.
func (t *IPTablesTracer) matches(s *scratch, b *branch, r *compiledRule, tbl *compiledTable, chain *compiledChain, i int) bool {
	c := r.checks
	p := &b.pkt
	switch {
	case c&checkDst != 0 && !r.dst.matches(p.dst, p.dst4, p.is4),
		c&checkSrc != 0 && !r.src.matches(p.src, p.src4, p.is4),
		c&checkProto != 0 && !r.proto.matches(p.proto),
		c&checkDPort != 0 && !r.dport.matches(p.dport),
		c&checkSPort != 0 && !r.sport.matches(p.sport),
		c&checkMark != 0 && (p.mark&r.mark.mask == r.mark.value) == r.mark.neg,
		c&checkCT != 0 && !t.ctMatches(r.ct, p),
		c&checkFragment != 0,
		c&checkAddrType != 0 && !t.addrTypeMatches(&r.addrType, p),
		c&checkRecent != 0 && !t.recentMatches(s, &r.recent):
		return false
	}
	if c&checkUndecidable != 0 {
		s.note(fmt.Sprintf("rule %d of %s %s: cannot decide %s; treated as not matching",
			i, tbl.name, chain.name, r.undecidable))
		return false
	}
	return true
}

// ctMatches evaluates --ctstate for a first packet: NEW, plus DNAT once
// the packet was DNATed.
func (t *IPTablesTracer) ctMatches(m ctMatch, p *pktState) bool {
	state := ctNew
	if p.dnat {
		state |= ctDNAT
	}
	return (m.mask&state != 0) != m.neg
}

func (t *IPTablesTracer) addrTypeMatches(m *addrTypeMatch, p *pktState) bool {
	if m.srcSet && (t.addrType(p.src)&m.src != 0) == m.srcNeg {
		return false
	}
	if m.dstSet && (t.addrType(p.dst)&m.dst != 0) == m.dstNeg {
		return false
	}
	return true
}

// addrType classifies an address the way the kernel's routing would for
// addrtype: local (a node address or loopback), multicast, broadcast, or
// unicast.
func (t *IPTablesTracer) addrType(a netip.Addr) uint8 {
	switch {
	case t.isLocal(a):
		return typeLocal
	case a.IsMulticast():
		return typeMulticast
	case a == broadcast4:
		return typeBroadcast
	}
	return typeUnicast
}

var broadcast4 = netip.AddrFrom4([4]byte{255, 255, 255, 255})

// recentMatches evaluates -m recent: --set always matches (it records the
// source); --rcheck/--update/--remove match only if the list holds the
// source, which for a first packet it does not unless Options.RecentHits
// says so.
func (t *IPTablesTracer) recentMatches(s *scratch, m *recentMatch) bool {
	if m.kind == recentSet {
		return !m.neg
	}
	s.noteAffinity(m.name)
	return t.recentHits[m.name] != m.neg
}
