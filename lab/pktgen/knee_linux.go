package pktgen

import (
	"context"
	"net/netip"
)

// KneeSpec names a lab's namespaces for Knee.
type KneeSpec struct {
	// ClientNetns and ClientIP are the client pod's; the SYNs leave its eth0.
	ClientNetns string
	ClientIP    netip.Addr
	// NodeNetns is the node whose conntrack table is flushed between batches.
	NodeNetns string
	// PodNetns are the pods' namespaces, whose eth0 counts the new flows.
	PodNetns []string
	// Target is the service address the SYNs go to.
	Target netip.AddrPort
	// StartRate (flows/s) is where the search begins, e.g. half the TCP
	// connection rate just measured (at least 1000).
	StartRate float64
}

// Knee finds the knee of a lab node's new-flow rate for spec.Target: raw
// SYNs with distinct source ports from the client pod over AF_PACKET,
// counted as new flows at the pods, with conntrack flushed between batches.
// It separates the lookup cost from the TCP stack. When even the first
// rate overloads the node, the most flows per second it forwarded is its
// capacity (Rate.Saturated).
func Knee(ctx context.Context, spec KneeSpec) (Rate, error) {
	var counters []func() (uint64, error)
	for _, ns := range spec.PodNetns {
		c, err := NewSynCounter(ns, "eth0")
		if err != nil {
			return Rate{}, err
		}
		defer c.Close()
		counters = append(counters, c.Count)
	}
	blast := Spec{
		ClientNetns: spec.ClientNetns, Iface: "eth0", SrcIP: spec.ClientIP,
		Targets:        []netip.AddrPort{spec.Target},
		FlushConntrack: FlushConntrackIn(spec.NodeNetns),
	}
	rate, err := Measure(ctx, MeasureSpec{Blast: blast, Forwarded: SumCounts(counters...),
		ConntrackNetns: spec.NodeNetns, StartRate: max(1000, spec.StartRate)})
	if err != nil && ctx.Err() == nil && saturatedFromStart(&rate) {
		return rate, nil
	}
	return rate, err
}

// saturatedFromStart handles a search whose every step lost flows: the node
// was saturated at each offered rate, so the most flows per second it
// forwarded is the knee.
func saturatedFromStart(r *Rate) bool {
	for _, s := range r.Steps {
		if s.FlowsPerSec > r.FlowsPerSec {
			r.FlowsPerSec, r.Offered, r.CPUMicrosPerPacket = s.FlowsPerSec, s.Offered, s.CPUMicrosPerPacket
		}
	}
	r.Saturated = true
	return r.FlowsPerSec > 0
}
