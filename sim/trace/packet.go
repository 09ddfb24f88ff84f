package trace

import (
	"fmt"
	"net/netip"
)

// Packet is the first packet of a connection (or, with State
// "established", a later one), as every tracer takes it.
type Packet struct {
	Src, Dst netip.Addr
	// Proto is "tcp", "udp" or "sctp" (the iptables tracer also takes
	// "icmp" and other protocols iptables names, without ports).
	Proto string
	DPort uint16
	// SPort is optional: the iptables tracer's --sport matches see 0 when
	// it is unset; the nftables tracer does not read it.
	SPort uint16
	// From is where the packet enters: "pod" (or "") for a packet from a
	// pod or another host, which crosses prerouting; "node" for a packet
	// from a host-network process, which crosses output.
	From string
	// InIface and OutIface are the interfaces the packet comes in on and
	// goes out of ("" when not known: an interface match is then
	// undecided). A host process's packet has no input interface, and one
	// to a local address goes out of and back in on lo.
	InIface, OutIface string
	// Mark is the packet mark it enters with (usually 0).
	Mark uint32
	// State is the conntrack state of the packet: "new" (default, the
	// first packet) or "established" (a later one: nat is not consulted).
	State string
}

// String formats p for messages: "tcp 10.0.0.5 -> 172.30.0.43:80 from pod".
func (p Packet) String() string {
	from := p.From
	if from == "" {
		from = "pod"
	}
	return fmt.Sprintf("%s %v -> %v:%d from %s", p.Proto, p.Src, p.Dst, p.DPort, from)
}
