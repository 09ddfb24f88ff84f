package nfttrace

import (
	"fmt"
	"net/netip"
)

// External is a base chain another tracer walks, hooked in among the
// ruleset's base chains by priority: on a host with iptables-nft, the
// tables iptables-nft made, walked from iptables-nft-save by the iptables
// tracer, next to a native table such as an inet filter firewall (see
// sim/trace/hosttrace).
type External struct {
	Hook     string // "prerouting", "input", "forward", "output" or "postrouting"
	Priority int
	Family   string // "ip" or "ip6": the packets it sees
	Table    string // for the steps, e.g. "ip nat"
	Chain    string // e.g. "PREROUTING"
	// NAT marks a nat chain: conntrack consults it only for the first
	// packet of a tracked connection.
	NAT  bool
	Walk func(ExternalPacket) ([]ExternalOutcome, error)
}

// ExternalPacket is the packet as it enters an External chain.
type ExternalPacket struct {
	Src, Dst                       netip.Addr
	Proto                          uint8
	DPort                          uint16
	Mark                           uint32
	DNATed, Untracked, Established bool
	FromNode, Looped               bool
	In, Out                        string
	InKnown, OutKnown              bool
}

// ExternalOutcome is one way the packet leaves an External chain.
type ExternalOutcome struct {
	// Prob and Eff multiply the branch's probabilities.
	Prob, Eff float64
	// Verdict is "accept" (on to the next base chain), "drop", "reject"
	// or "unknown" (with Unknown saying why).
	Verdict, Unknown string
	DNAT             netip.AddrPort // valid when the chain DNATed the packet
	Mark             uint32
	Masquerade       bool
	Untracked        bool
	Rules            int
	Path             []Step
	// Service is the service port the chain's rules named ("ns/name:port"
	// from a nat KUBE-SERVICES comment), "" if none.
	Service string
}

// runExternal walks an External base chain and continues each way out.
func (tr *tracer) runExternal(st *state, bc *cchain, hook string, idx int) error {
	x := bc.ext
	outs, err := x.Walk(ExternalPacket{Src: st.src, Dst: st.dst, Proto: st.proto, DPort: st.dport, Mark: st.mark,
		DNATed: st.dnat.IsValid(), Untracked: st.untracked, Established: st.established, FromNode: tr.from == "node",
		Looped: st.looped, In: st.in, Out: st.out, InKnown: st.inKnown, OutKnown: st.outKnown})
	if err != nil {
		return fmt.Errorf("%s %s: %w", x.Table, x.Chain, err)
	}
	for _, o := range outs {
		b := st.clone()
		b.prob *= o.Prob
		b.eff *= o.Eff
		b.mark, b.masq, b.untracked = o.Mark, b.masq || o.Masquerade, o.Untracked
		if o.DNAT.IsValid() {
			b.dnatTo(o.DNAT.Addr(), o.DNAT.Port())
		}
		b.rules += o.Rules
		if b.service == "" {
			b.service = o.Service
		}
		if !tr.p.skipPath {
			for _, s := range o.Path {
				s.Hook = hook
				b.path = append(b.path, s)
			}
		}
		if o.Unknown != "" {
			b.unknown = o.Unknown
		}
		if o.Verdict == "accept" {
			err = tr.stage(b, hook, idx+1)
		} else {
			tr.finish(b, o.Verdict)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
