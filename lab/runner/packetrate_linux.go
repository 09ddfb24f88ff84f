package runner

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/pktgen"
)

// packetRate finds the knee of the node's new-flow rate for the last target:
// raw SYNs with distinct source ports from the client pod over AF_PACKET,
// counted as new flows at the pods, with conntrack flushed between batches.
// It separates the lookup cost from the TCP stack.
//
// startRate (flows/s) is where the search begins, e.g. half the TCP
// connection rate just measured, so points with many services do not start
// far above what the node can forward. When even the first rate overloads
// the node, the most flows per second it forwarded is its capacity.
func (l *sweepLab) packetRate(ctx context.Context, startRate float64) (pktgen.Rate, error) {
	var counters []func() (uint64, error)
	for _, p := range l.lab.Topo.Pods {
		c, err := pktgen.NewSynCounter(p.Netns, "eth0")
		if err != nil {
			return pktgen.Rate{}, err
		}
		defer c.Close()
		counters = append(counters, c.Count)
	}
	blast := pktgen.Spec{
		ClientNetns: l.lab.Topo.ClientNetns, Iface: "eth0", SrcIP: l.lab.Topo.ClientIP,
		Targets:        []netip.AddrPort{netip.AddrPortFrom(sweepTargetIPs["last"], uint16(sweepTargetPort.Port))},
		FlushConntrack: pktgen.FlushConntrackIn(l.lab.Topo.NodeNetns),
	}
	rate, err := pktgen.Measure(ctx, pktgen.MeasureSpec{Blast: blast, Forwarded: pktgen.SumCounts(counters...),
		ConntrackNetns: l.lab.Topo.NodeNetns, StartRate: max(1000, startRate)})
	if err != nil && ctx.Err() == nil && saturatedFromStart(&rate) {
		return rate, nil
	}
	if err != nil {
		return rate, fmt.Errorf("%s at %d services: packet rate: %w", l.plan.dataplane, l.plan.services, err)
	}
	return rate, nil
}

// saturatedFromStart handles a search whose every step lost flows: the node
// was saturated at each offered rate, so the most flows per second it
// forwarded is the knee.
func saturatedFromStart(r *pktgen.Rate) bool {
	for _, s := range r.Steps {
		if s.FlowsPerSec > r.FlowsPerSec {
			r.FlowsPerSec, r.Offered, r.CPUMicrosPerPacket = s.FlowsPerSec, s.Offered, s.CPUMicrosPerPacket
		}
	}
	r.Saturated = true
	return r.FlowsPerSec > 0
}
