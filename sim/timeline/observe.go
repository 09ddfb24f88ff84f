package timeline

import (
	"net/netip"
	"time"
)

// Kind says what a lab observed of one connection or datagram.
type Kind int

// Observation kinds.
const (
	// Delivered: a TCP connection answered by, or a datagram received at,
	// Endpoint.
	Delivered Kind = iota + 1
	// Refused: a TCP connection reset, or a datagram's send refused (an
	// ICMP error came back).
	Refused
	// TimedOut: a TCP connection without an answer within its timeout.
	TimedOut
	// Sent: a datagram sent (its arrival, if any, is a Delivered).
	Sent
	// Applied: the lab applied change Change (Traffic ProbeTraffic): a
	// change comes due while the engine is busy (a restart waits for the
	// previous restart's first sync) is applied late.
	Applied
)

// ProbeTraffic is the Traffic of an observation made by a probe of a
// created service (Change names the change that created it).
const ProbeTraffic = -1

// Observation is one thing the lab saw during the window.
type Observation struct {
	// At is the time since the window's start (a connection's start, a
	// datagram's arrival or send).
	At time.Duration
	// Traffic is the generator's index in the scenario's timeline.traffic,
	// or ProbeTraffic.
	Traffic int
	// Change is, for a probe, the index of the change it probes.
	Change   int
	Kind     Kind
	Endpoint netip.Addr
}
