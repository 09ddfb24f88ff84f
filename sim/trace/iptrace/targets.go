package iptrace

import (
	"fmt"
	"net/netip"
)

// apply runs the target of a matched rule other than a jump, goto,
// return or MARK (which walk handles); it returns the hook's verdict, or
// vNone to go on with the next rule.
func (t *IPTablesTracer) apply(s *scratch, b *branch, tbl *compiledTable, r *compiledRule) vcode {
	switch r.target {
	case targetAccept:
		return vAccept
	case targetDrop:
		return vDrop
	case targetReject:
		return vReject
	case targetDNAT:
		port := r.dnatPort
		if r.flags&flagDNATv4 != 0 {
			a := r.tgtA
			b.pkt.dst = netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})
		} else {
			b.pkt.dst = r.dnat.Addr()
		}
		b.pkt.dnat = true
		if b.pkt.is4 {
			b.pkt.dst4 = addr4(b.pkt.dst)
		}
		b.pkt.dstLocal = t.isLocal(b.pkt.dst)
		if port != 0 {
			b.pkt.dport = port
		}
		b.dnatTo = netip.AddrPortFrom(b.pkt.dst, b.pkt.dport)
		return vAccept
	case targetMasquerade:
		b.masquerade = true
		return vAccept
	case targetNotrack:
		b.pkt.untracked = true
	case targetMissingChain:
		s.note(fmt.Sprintf("%s: jump to %s, which is not in the dump; treated as an empty chain", tbl.name, r.name))
	case targetUnmodelled:
		s.note(fmt.Sprintf("%s: target %s is not modelled; the verdict is unknown", tbl.name, r.src0.String()))
		return vUnknown
	}
	return vNone
}
