package iptrace

import (
	"fmt"
	"net/netip"
)

// apply runs the target of a matched rule; done reports a verdict for the
// hook.
func (t *IPTablesTracer) apply(s *scratch, b *branch, tbl *compiledTable, r *compiledRule) (Verdict, bool, error) {
	switch r.target {
	case targetJump, targetGoto:
		if r.service != "" && b.service == "" {
			b.service = r.service
		}
		if r.target == targetJump {
			if b.depth == maxDepth {
				return "", true, errTooDeep
			}
			b.depth++
		}
		b.frames[b.depth-1] = frame{chain: r.chain}
	case targetReturn:
		b.depth--
	case targetAccept:
		return Accept, true, nil
	case targetDrop:
		return Drop, true, nil
	case targetReject:
		return Reject, true, nil
	case targetDNAT:
		b.pkt.dst, b.pkt.dnat = r.dnat.Addr(), true
		if b.pkt.is4 {
			b.pkt.dst4 = addr4(b.pkt.dst)
		}
		if r.dnat.Port() != 0 {
			b.pkt.dport = r.dnat.Port()
		}
		b.dnatTo = netip.AddrPortFrom(b.pkt.dst, b.pkt.dport)
		return Accept, true, nil
	case targetMasquerade:
		b.masquerade = true
		return Accept, true, nil
	case targetMark:
		b.pkt.mark = (b.pkt.mark &^ r.markM) ^ r.markV
	case targetNotrack:
		b.pkt.untracked = true
	case targetMissingChain:
		s.note(fmt.Sprintf("%s: jump to %s, which is not in the dump; treated as an empty chain", tbl.name, r.name))
	case targetUnmodelled:
		s.note(fmt.Sprintf("%s: target %s is not modelled; the verdict is unknown", tbl.name, r.src0.String()))
		return Unknown, true, nil
	}
	return "", false, nil
}
