package iptrace

import (
	"fmt"
	"net/netip"
)

// HookPacket is a packet entering one built-in chain, for a walk another
// tracer drives: iptables-nft's tables hooked in among a host's native
// nftables tables by priority (see WalkHook and sim/trace/hosttrace).
type HookPacket struct {
	Src, Dst     netip.Addr
	Proto        uint8 // IP protocol number
	SPort, DPort uint16
	Mark         uint32
	// Conntrack: DNATed (state DNAT), untracked (notrack), established.
	DNATed, Untracked, Established bool
	// FromHost: sent by a host process; Looped: such a packet to a local
	// address, back in on lo.
	FromHost, Looped bool
	// The interfaces at this hook; known false when not known ("" known
	// true: none, as for OUTPUT's input interface).
	In, Out           string
	InKnown, OutKnown bool
}

// HookOutcome is one way a packet leaves the chain.
type HookOutcome struct {
	// Prob and Eff are the product of the statistic rules taken on the
	// way, as written and as the kernel applies them.
	Prob, Eff float64
	// Verdict is the chain's verdict: Accept (on to the next chain of the
	// hook), Drop, Reject or Unknown (an unmodelled target).
	Verdict Verdict
	// The packet as it leaves.
	Dst                   netip.Addr
	DPort                 uint16
	DNATed                bool // the chain DNATed it
	Mark                  uint32
	Masquerade, Untracked bool
	Service               string
	Rules                 int // rules a linear kernel walk evaluates
	Path                  []Step
	// Undecided lists the undecided matches this outcome assumed, with
	// the assumption ("filter FORWARD #3: -i cali+ (assumed to match)").
	Undecided []string
	Notes     []string
}

// HasHook reports whether the dump has table's built-in chain (or the
// tracer assumes kube-proxy's jump rules for it).
func (t *IPTablesTracer) HasHook(table, chain string) bool {
	st, ok := stageOf(table, chain)
	return ok && t.hookChain[st] >= 0
}

func stageOf(table, chain string) (stage, bool) {
	for st, h := range stageHooks {
		if tableNames[h.table] == table && h.chain == chain {
			return stage(st), true
		}
	}
	return 0, false
}

// WalkHook walks p through table's built-in chain only (with the chains
// it jumps to) and returns every way out, forking at statistic rules and
// undecided matches as Trace does. A chain the dump lacks accepts.
func (t *IPTablesTracer) WalkHook(table, chain string, p HookPacket) ([]HookOutcome, error) {
	st, ok := stageOf(table, chain)
	if !ok {
		return nil, fmt.Errorf("walk %s %s: not a built-in chain the tracer walks", table, chain)
	}
	start := t.hookChain[st]
	if start < 0 {
		return []HookOutcome{{Prob: 1, Eff: 1, Verdict: Accept, Dst: p.Dst, DPort: p.DPort, Mark: p.Mark, Untracked: p.Untracked}}, nil
	}
	src, dst := p.Src.Unmap(), p.Dst.Unmap()
	if !src.IsValid() || !dst.IsValid() || src.Is4() != dst.Is4() {
		return nil, fmt.Errorf("walk %s %s: want source and destination addresses of one family", table, chain)
	}
	s := new(scratch)
	b := &s.cur
	*b = branch{outcome: outcome{prob: 1, eff: 1, assumed: -1}, fresh: true, stage: st}
	b.pkt = pktState{src: src, dst: dst, is4: src.Is4(), proto: p.Proto, sport: p.SPort, dport: p.DPort, mark: p.Mark,
		dnat: p.DNATed, untracked: p.Untracked, established: p.Established, fromHost: p.FromHost, looped: p.Looped,
		in: p.In, out: p.Out, inKnown: p.InKnown, outKnown: p.OutKnown, tcpFlags: tcpSYN}
	if p.Established {
		b.pkt.tcpFlags = tcpACK
	}
	if b.pkt.is4 {
		b.pkt.src4, b.pkt.dst4 = addr4(src), addr4(dst)
	}
	b.pkt.dstLocal = t.isLocal(dst)
	b.enter(start)
	tbl := t.tables[stageHooks[st].table]
	var outs []HookOutcome
	for {
		t.resume(s, b)
		v, err := t.walk(s, b, tbl)
		v = t.policy(s, tbl, &tbl.chains[start], v)
		if err != nil {
			return nil, fmt.Errorf("walk %s %s: %w", table, chain, err)
		}
		outs = append(outs, t.hookOutcome(s, b, v, p))
		if len(s.pending) == 0 {
			break
		}
		s.pop(b)
	}
	return outs, nil
}

// hookOutcome describes a branch that left its chain with v.
func (t *IPTablesTracer) hookOutcome(s *scratch, b *branch, v vcode, in HookPacket) HookOutcome {
	o := HookOutcome{Prob: b.prob, Eff: b.eff, Verdict: v.verdict(), Dst: b.pkt.dst, DPort: b.pkt.dport,
		DNATed: b.dnatTo.IsValid(), Mark: b.pkt.mark, Masquerade: b.masquerade, Untracked: b.pkt.untracked,
		Service: t.serviceName(b.service), Rules: b.rules}
	if !o.DNATed {
		o.Dst, o.DPort = in.Dst, in.DPort
	}
	o.Path = s.steps[b.start:len(s.steps):len(s.steps)] // s is this call's own
	for a := b.assumed; a >= 0; a = s.assume[a].prev {
		as := &s.assume[a]
		word := " (assumed not to match)"
		if as.matched {
			word = " (assumed to match)"
		}
		o.Undecided = append(o.Undecided, t.ruleName(ruleKey{as.table, as.chain, as.rule})+": "+as.why+word)
	}
	o.Notes = append(append(o.Notes, t.notes...), s.notes...)
	return o
}

// resume starts the path of a branch taken from the queue at the end of
// the arena: its parent's path up to the fork, then the rule it forked at.
func (t *IPTablesTracer) resume(s *scratch, b *branch) {
	if b.fresh && !t.skipPaths {
		start := int32(len(s.steps))
		s.steps = append(s.steps, s.steps[b.start:b.cut]...)
		if b.forkedAt != nil {
			s.steps = append(s.steps, Step{tmpl: b.forkedAt})
		}
		b.start, b.fresh = start, false
	}
}
