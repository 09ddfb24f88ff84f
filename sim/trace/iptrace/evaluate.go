package iptrace

import (
	"net/netip"
	"strings"
)

// matches evaluates every match of r except the statistic one, which fork
// handles. When a match cannot be decided and the others match, it returns
// why (the caller forks).
func (t *IPTablesTracer) matches(s *scratch, b *branch, r *compiledRule) (bool, string) {
	c := r.checks
	p := &b.pkt
	switch {
	case c&checkDst != 0 && !r.dstMatches(p),
		c&checkSrc != 0 && !r.srcMatches(p),
		c&checkProto != 0 && !r.protoMatches(p.proto),
		c&checkDPort != 0 && (p.dport >= r.dportLo && p.dport <= r.dportHi) == (r.flags&flagDPortNeg != 0),
		c&checkSPort != 0 && !r.sport.matches(p.sport),
		c&checkMark != 0 && (p.mark&r.mark.mask == r.mark.value) == r.mark.neg,
		c&checkCT != 0 && !t.ctMatches(r.ct, p),
		c&checkFragment != 0,
		c&checkAddrType != 0 && !t.addrTypeMatches(&r.addrType, p),
		c&checkRecent != 0 && !t.recentMatches(s, &r.recent),
		c&checkMultiport != 0 && !multiportMatches(r.multiports, p),
		c&checkTCPFlags != 0 && p.proto == 6 && (p.tcpFlags&r.tcpFlags.mask == r.tcpFlags.comp) == r.tcpFlags.neg,
		c&checkMore != 0 && !t.moreMatch(r, p):
		return false, ""
	}
	var why []string
	if c&checkCT != 0 && p.established && r.ct.mask&(ctDNAT|ctSNAT) != 0 {
		with, without := r.ct.test(ctEstablished|ctDNAT|ctSNAT), r.ct.test(ctEstablished)
		if with != without {
			why = append(why, "--ctstate "+r.ctText+" (whether the established connection was NATed)")
		}
	}
	if c&checkIface != 0 {
		var ok bool
		if ok, why = ifacesMatch(r, p, why); !ok {
			return false, ""
		}
	}
	if c&checkSet != 0 {
		ok, w := t.setsMatch(r, p)
		if !ok && w == "" {
			return false, ""
		}
		if w != "" {
			why = append(why, w)
		}
	}
	if c&checkUndecidable != 0 {
		why = append(why, r.undecidable)
	}
	if len(why) > 0 {
		return false, strings.Join(why, ", ")
	}
	return true, ""
}

// ifacesMatch evaluates -i and -o: false if one does not match, else the
// ones that cannot be decided added to why.
func ifacesMatch(r *compiledRule, p *pktState, why []string) (bool, []string) {
	if r.in.set {
		switch {
		case !p.inKnown:
			why = append(why, r.in.String("-i")+" (give --in-iface)")
		case !r.in.matches(p.in):
			return false, why
		}
	}
	if r.out.set {
		switch {
		case !p.outKnown:
			why = append(why, r.out.String("-o")+" (give --out-iface)")
		case !r.out.matches(p.out):
			return false, why
		}
	}
	return true, why
}

// ctMatches evaluates --ctstate: NEW for a first packet (plus DNAT once the
// packet was DNATed), ESTABLISHED for a later one, UNTRACKED after notrack.
// For an established packet the NAT bits are decided by the caller.
func (t *IPTablesTracer) ctMatches(m ctMatch, p *pktState) bool {
	switch {
	case p.untracked:
		return m.test(ctUntracked)
	case p.established:
		if with := m.test(ctEstablished | ctDNAT | ctSNAT); with != m.test(ctEstablished) {
			return true // undecided: matches says so
		}
		return m.test(ctEstablished)
	}
	return m.test(p.ctState())
}

// ctState is the conntrack state of a packet that is not established.
func (p *pktState) ctState() uint8 {
	switch {
	case p.untracked:
		return ctUntracked
	case p.dnat:
		return ctNew | ctDNAT
	}
	return ctNew
}

func (m ctMatch) test(state uint8) bool { return (m.mask&state != 0) != m.neg }

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
		s.noteRecentSet(m.name)
		return !m.neg
	}
	s.noteAffinity(m.name)
	s.recentChecks = append(s.recentChecks, m.name)
	return t.recentHits[m.name] != m.neg
}

// moreMatch evaluates the further instances of modules a rule loads more
// than once.
func (t *IPTablesTracer) moreMatch(r *compiledRule, p *pktState) bool {
	for _, m := range r.moreMarks {
		if (p.mark&m.mask == m.value) == m.neg {
			return false
		}
	}
	for i := range r.moreAddrTypes {
		if !t.addrTypeMatches(&r.moreAddrTypes[i], p) {
			return false
		}
	}
	for _, m := range r.moreCT {
		if !t.ctMatches(m, p) {
			return false
		}
	}
	return true
}
