package pktgen

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Spec describes one blast of SYNs from a client namespace.
type Spec struct {
	// ClientNetns is the namespace the frames leave from.
	ClientNetns string
	// Iface is the client's link; empty means "eth0".
	Iface string
	// SrcIP is the client's address; zero means the first IPv4 address on
	// Iface.
	SrcIP netip.Addr
	// Targets are the service addresses (ClusterIP:port); each packet goes
	// to the next one in turn, or to a random one with Random.
	Targets []netip.AddrPort
	// Random picks each packet's target at random (seeded by Seed) instead
	// of round-robin.
	Random bool
	// Seed seeds Random.
	Seed uint64
	// Packets bounds the blast by count; 0 means no count bound.
	Packets int
	// Duration bounds the blast by sending time; 0 means no time bound.
	// At least one of Packets and Duration must be set.
	Duration time.Duration
	// Rate is the offered rate in packets per second; 0 sends as fast as
	// the client's socket takes them.
	Rate float64
	// SrcPorts is the range source ports cycle through; zero means
	// DefaultSrcPorts.
	SrcPorts PortRange
	// FlushConntrack empties the node's conntrack table (see
	// FlushConntrackIn). Blast calls it before the first packet and every
	// FlushEvery packets, so no 5-tuple repeats within a conntrack epoch.
	// Nil means no flushing: see Result.RepeatedTuples.
	FlushConntrack func() error
	// FlushEvery is the number of packets between flushes; zero means
	// the smaller of 60,000 and 15/16 of the port range. It must be below
	// the size of the port range.
	FlushEvery int
}

// PortRange is an inclusive range of TCP ports.
type PortRange struct {
	First, Last uint16
}

// DefaultSrcPorts is every unprivileged port.
var DefaultSrcPorts = PortRange{First: 1024, Last: 65535}

// size is the number of ports in r.
func (r PortRange) size() int { return int(r.Last) - int(r.First) + 1 }

// Result reports one blast.
type Result struct {
	// Sent counts the frames the client's socket accepted.
	Sent int
	// Dropped counts the frames the client's veth refused because the
	// node's input backlog was full (ENOBUFS); they are offered but lost.
	Dropped int
	// Elapsed is the sending time, conntrack flushes excluded.
	Elapsed time.Duration
	// PPS is Sent per second of Elapsed.
	PPS float64
	// Flushes counts FlushConntrack calls, the one before the first packet
	// included.
	Flushes int
	// FlushTime is the time spent in FlushConntrack.
	FlushTime time.Duration
	// RepeatedTuples counts packets whose 5-tuple had already been sent
	// since the last flush (or, without FlushConntrack, in this blast):
	// they may have reused a conntrack entry and skipped the nat table.
	RepeatedTuples int
}

const (
	defaultIface      = "eth0"
	defaultFlushEvery = 60000
)

// withDefaults fills in the zero fields of s.
func (s Spec) withDefaults() Spec {
	if s.Iface == "" {
		s.Iface = defaultIface
	}
	if s.SrcPorts == (PortRange{}) {
		s.SrcPorts = DefaultSrcPorts
	}
	if s.FlushEvery == 0 {
		s.FlushEvery = min(defaultFlushEvery, s.SrcPorts.size()*15/16)
	}
	return s
}

// validate reports the first thing in s that Blast cannot honour; s has
// its defaults filled in.
func (s Spec) validate() error {
	switch {
	case s.ClientNetns == "":
		return errors.New("no client netns")
	case len(s.Targets) == 0:
		return errors.New("no targets")
	case s.Packets < 0 || s.Duration < 0 || s.Rate < 0:
		return fmt.Errorf("negative bound: packets %d, duration %s, rate %g", s.Packets, s.Duration, s.Rate)
	case s.Packets == 0 && s.Duration == 0:
		return errors.New("neither Packets nor Duration bounds the blast")
	case s.SrcPorts.First == 0 || s.SrcPorts.Last < s.SrcPorts.First:
		return fmt.Errorf("source ports %d-%d: want 1 <= first <= last", s.SrcPorts.First, s.SrcPorts.Last)
	case s.FlushEvery < 1 || s.FlushEvery >= s.SrcPorts.size():
		return fmt.Errorf("flush every %d packets: want 1 to %d, below the %d source ports", s.FlushEvery, s.SrcPorts.size()-1, s.SrcPorts.size())
	}
	if s.SrcIP.IsValid() && !s.SrcIP.Is4() {
		return fmt.Errorf("source %s: want IPv4", s.SrcIP)
	}
	for _, t := range s.Targets {
		if !t.Addr().Is4() || t.Port() == 0 {
			return fmt.Errorf("target %s: want IPv4 address and nonzero port", t)
		}
	}
	return nil
}
