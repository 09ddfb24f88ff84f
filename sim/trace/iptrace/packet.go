package iptrace

import (
	"errors"
	"fmt"

	"github.com/svclab/svclab/sim/trace"
)

// startBranch checks p and makes b the branch every trace starts from.
func (t *IPTablesTracer) startBranch(p trace.Packet, b *branch) error {
	src, dst := p.Src.Unmap(), p.Dst.Unmap()
	if !src.IsValid() || !dst.IsValid() {
		return fmt.Errorf("trace %v: source and destination addresses are required", p)
	}
	if src.Is4() != dst.Is4() {
		return fmt.Errorf("trace %v: source and destination are of different families", p)
	}
	proto, ok := protoNumber(p.Proto)
	if !ok {
		return fmt.Errorf("trace %v: unknown protocol %q", p, p.Proto)
	}
	*b = branch{outcome: outcome{prob: 1, eff: 1, assumed: -1}, fresh: true, frames: b.frames} // the stack is reused
	b.pkt = pktState{src: src, dst: dst, is4: src.Is4(), proto: proto, sport: p.SPort, dport: p.DPort,
		mark: p.Mark, givenIn: p.InIface, givenOut: p.OutIface, tcpFlags: tcpSYN}
	switch p.From {
	case "", "pod":
		b.stage = stageRawPrerouting
	case "node":
		b.stage, b.pkt.fromHost = stageRawOutput, true
	default:
		return fmt.Errorf("trace %v: %w", p, errBadFrom)
	}
	switch p.State {
	case "", "new":
	case "established":
		b.pkt.established, b.pkt.tcpFlags = true, tcpACK
	default:
		return fmt.Errorf("trace %v: state %q: want new or established", p, p.State)
	}
	if b.pkt.is4 {
		b.pkt.src4, b.pkt.dst4 = addr4(src), addr4(dst)
	}
	b.pkt.dstLocal = t.isLocal(dst)
	return nil
}

// protoNumber maps a protocol name to its number, the common ones without
// a map lookup.
func protoNumber(name string) (uint8, bool) {
	switch name {
	case "tcp":
		return 6, true
	case "udp":
		return 17, true
	case "sctp":
		return 132, true
	}
	n, ok := protoNumbers[name]
	return n, ok
}

var errBadFrom = errors.New(`packet origin must be "pod" or "node"`)

// setIfaces sets the interfaces the packet has at stage st: PREROUTING,
// INPUT and FORWARD see the input interface (lo for a looped-back packet),
// OUTPUT none; FORWARD, OUTPUT and POSTROUTING the output interface (lo to
// a local address).
func (p *pktState) setIfaces(st stage) {
	hook := stageHooks[st].hook
	switch {
	case hook == hookOutput || (p.fromHost && !p.looped):
		p.in, p.inKnown = "", true
	case p.looped:
		p.in, p.inKnown = "lo", true
	default:
		p.in, p.inKnown = p.givenIn, p.givenIn != ""
	}
	switch {
	case hook == hookPrerouting || hook == hookInput:
		p.out, p.outKnown = "", true
	case p.dstLocal:
		p.out, p.outKnown = "lo", true
	default:
		p.out, p.outKnown = p.givenOut, p.givenOut != ""
	}
}
