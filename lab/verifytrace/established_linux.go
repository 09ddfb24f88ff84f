package verifytrace

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/lab/netns"
)

// TCP flags the sender sets (Packet.TCPFlags; 0 sends a SYN).
const (
	tcpSYNACK = 0x12
	tcpACK    = 0x10
)

// ctEntry is a conntrack entry's reply tuple.
type ctEntry struct {
	src, dst     netip.Addr
	sport, dport uint16
	unreplied    bool // conntrack has seen no reply yet
}

// conntrackReply looks up the entry p created in the node (conntrack -L)
// and returns its reply tuple; ok is false without an entry.
func (l *lab) conntrackReply(p Packet) (ctEntry, bool, error) {
	family := "ipv4"
	if p.Src.Is6() {
		family = "ipv6"
	}
	out, err := netns.Output(l.node, nil, "conntrack", "-L", "-f", family, "-p", p.Proto, "--orig-src", p.Src.String(), "--orig-dst", p.Dst.String(),
		"--sport", strconv.Itoa(int(p.SPort)), "--dport", strconv.Itoa(int(p.DPort)))
	if err != nil {
		if strings.Contains(err.Error(), "0 flow entries") {
			return ctEntry{}, false, nil
		}
		return ctEntry{}, false, fmt.Errorf("conntrack -L for %v: %w", p, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if e, ok := parseReplyTuple(line); ok {
			e.unreplied = strings.Contains(line, "[UNREPLIED]")
			return e, true, nil
		}
	}
	return ctEntry{}, false, nil
}

// parseReplyTuple reads the second src= dst= sport= dport= group of a
// conntrack -L line.
func parseReplyTuple(line string) (ctEntry, bool) {
	var e ctEntry
	seen := map[string]int{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		seen[k]++
		if seen[k] != 2 {
			continue
		}
		switch k {
		case "src":
			e.src, _ = netip.ParseAddr(v)
		case "dst":
			e.dst, _ = netip.ParseAddr(v)
		case "sport", "dport":
			n, _ := strconv.Atoi(v)
			if k == "sport" {
				e.sport = uint16(n)
			} else {
				e.dport = uint16(n)
			}
		}
	}
	return e, e.src.IsValid() && e.dst.IsValid() && e.sport != 0
}

// establish makes the connection of p (a client packet the node accepted)
// established: it sends the reply the conntrack entry expects from the
// client side (SYN-ACK for TCP) and returns the next packet of the
// connection (an ACK for TCP) and the destination the node's filter chains
// see for it (the connection's DNAT). ok is false when p made no entry,
// its reply would come from the node itself or go to the client's own
// address (the client cannot send that through the node), or conntrack
// did not take the reply.
// The reply gets IP id id (0: its source port) and after sending it
// settle runs (nil: nothing), before conntrack is asked again.
func (l *lab) establish(p Packet, s *senderSet, local map[netip.Addr]bool, id uint16, settle func() error) (next Packet, seen netip.AddrPort, ok bool, err error) {
	e, ok, err := l.conntrackReply(p)
	if err != nil || !ok || local[e.src] || e.dst == ClientAddr || e.dst == ClientAddr6 {
		return Packet{}, netip.AddrPort{}, false, err
	}
	reply := Packet{Src: e.src, Dst: e.dst, Proto: p.Proto, SPort: e.sport, DPort: e.dport, InIface: "eth0", TCPFlags: tcpSYNACK, IPID: id}
	if err := s.clients["eth0"].send(reply); err != nil {
		return Packet{}, netip.AddrPort{}, false, err
	}
	if settle != nil {
		if err := settle(); err != nil {
			return Packet{}, netip.AddrPort{}, false, err
		}
	}
	if e, ok, err = l.conntrackReply(p); err != nil || !ok || e.unreplied {
		return Packet{}, netip.AddrPort{}, false, err
	}
	next = p
	next.TCPFlags = tcpACK
	return next, netip.AddrPortFrom(e.src, e.sport), true, nil
}
