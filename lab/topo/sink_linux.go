package topo

import (
	"net/netip"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// buildSink makes the sink pod, which owns every address of the sink ranges
// through local (AnyIP) routes, so one socket bound to 0.0.0.0:PORT there
// accepts connections to every filler endpoint. The node routes each range
// to it through one next hop with a permanent neighbour entry, so even 100k
// endpoints cost one neighbour, not one each. The pods' own /32 routes on
// the node are longer and still win.
func (b *builder) buildSink() error {
	name := sinkNetnsName(b.spec.Prefix)
	j, err := b.attach(attachment{netns: name, hostVeth: sinkVethName(b.spec.Prefix)})
	if err != nil {
		return err
	}
	defer j.close()
	if err := b.routeRangesToSink(j); err != nil {
		return err
	}
	return b.claimRangesInSink(j, name)
}

// routeRangesToSink adds, in the node, each range via sinkNextHop onlink.
func (b *builder) routeRangesToSink(j *joined) error {
	host := j.hostLink.Attrs().Index
	if err := addNeighbour(b.node, b.nodeNetns, host, sinkNextHop, j.podLink.Attrs().HardwareAddr); err != nil {
		return err
	}
	for _, p := range b.spec.SinkPrefixes {
		route := &netlink.Route{LinkIndex: host, Dst: prefixNet(p), Gw: sinkNextHop.AsSlice(), Flags: int(netlink.FLAG_ONLINK)}
		if err := addRoute(b.node, b.nodeNetns, route); err != nil {
			return err
		}
	}
	return nil
}

// claimRangesInSink adds `local RANGE dev lo` to the sink's local table, and
// for every real address of the lab (client, pods) inside a range a /32
// exception through the gateway, so the sink still answers them instead of
// taking their packets for its own (a martian source) or its replies for
// local delivery.
func (b *builder) claimRangesInSink(j *joined, name string) error {
	lo, err := j.pod.LinkByName("lo")
	if err != nil {
		return err
	}
	for _, p := range b.spec.SinkPrefixes {
		route := &netlink.Route{
			LinkIndex: lo.Attrs().Index, Dst: prefixNet(p), Table: unix.RT_TABLE_LOCAL,
			Type: unix.RTN_LOCAL, Scope: netlink.SCOPE_HOST,
		}
		if err := addRoute(j.pod, name, route); err != nil {
			return err
		}
	}
	for _, ip := range b.addressesInSinkRanges() {
		route := &netlink.Route{
			LinkIndex: j.podLink.Attrs().Index, Dst: hostPrefix(ip), Gw: GatewayIP.AsSlice(),
			Table: unix.RT_TABLE_LOCAL, Type: unix.RTN_UNICAST,
		}
		if err := addRoute(j.pod, name, route); err != nil {
			return err
		}
	}
	return nil
}

// addressesInSinkRanges lists the client's and pods' addresses that fall
// inside a sink range.
func (b *builder) addressesInSinkRanges() []netip.Addr {
	var inside []netip.Addr
	candidates := []netip.Addr{b.spec.ClientIP, b.spec.NodeIP}
	for _, pod := range b.spec.Pods {
		candidates = append(candidates, pod.IP)
	}
	if e := b.spec.External; e != nil {
		candidates = append(candidates, e.IPs...)
	}
	if n := b.spec.SecondNode; n != nil {
		candidates = append(candidates, n.NodeIP)
	}
	for _, ip := range candidates {
		for _, p := range b.spec.SinkPrefixes {
			if p.Contains(ip) {
				inside = append(inside, ip)
				break
			}
		}
	}
	return inside
}
