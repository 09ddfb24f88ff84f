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
func (l *sweepLab) packetRate(ctx context.Context) (pktgen.Rate, error) {
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
	rate, err := pktgen.Measure(ctx, pktgen.MeasureSpec{Blast: blast, Forwarded: pktgen.SumCounts(counters...), ConntrackNetns: l.lab.Topo.NodeNetns})
	if err != nil {
		return rate, fmt.Errorf("%s at %d services: packet rate: %w", l.plan.dataplane, l.plan.services, err)
	}
	return rate, nil
}
