package pktgen

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"

	"github.com/svclab/svclab/lab/netns"
)

// clientPath is what Blast learns about the client side before sending:
// the link to send on and the layer-2 addresses of every frame.
type clientPath struct {
	ifindex int
	link    link
	src     netip.Addr
}

// discoverPath reads, in the client namespace, the index and MAC of the
// link, the source address (spec.SrcIP or the link's first IPv4 address),
// and the MAC of the next hop toward the first target from the neighbour
// table. Blast sends raw frames and cannot resolve ARP itself, so the next
// hop needs an entry (lab/topo makes it permanent).
func discoverPath(spec Spec) (clientPath, error) {
	ns, err := netns.Open(spec.ClientNetns)
	if err != nil {
		return clientPath{}, err
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return clientPath{}, fmt.Errorf("netlink handle for netns %s: %w", spec.ClientNetns, err)
	}
	defer h.Close()
	l, err := h.LinkByName(spec.Iface)
	if err != nil {
		return clientPath{}, fmt.Errorf("find link %s in netns %s: %w", spec.Iface, spec.ClientNetns, err)
	}
	p := clientPath{ifindex: l.Attrs().Index, src: spec.SrcIP}
	p.link.src = l.Attrs().HardwareAddr
	if !p.src.IsValid() {
		if p.src, err = firstIPv4(h, l, spec.ClientNetns); err != nil {
			return clientPath{}, err
		}
	}
	p.link.dst, err = nextHopMAC(h, l, spec.Targets[0].Addr(), spec.ClientNetns)
	return p, err
}

// firstIPv4 returns the first IPv4 address on l.
func firstIPv4(h *netlink.Handle, l netlink.Link, nsName string) (netip.Addr, error) {
	addrs, err := h.AddrList(l, netlink.FAMILY_V4)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("list addresses of %s in netns %s: %w", l.Attrs().Name, nsName, err)
	}
	for _, a := range addrs {
		if ip, ok := netip.AddrFromSlice(a.IP.To4()); ok {
			return ip, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("link %s in netns %s has no IPv4 address", l.Attrs().Name, nsName)
}

// nextHopMAC looks up the route to dst and returns the neighbour entry's MAC
// of its gateway (or of dst itself when the route has none).
func nextHopMAC(h *netlink.Handle, l netlink.Link, dst netip.Addr, nsName string) (net.HardwareAddr, error) {
	routes, err := h.RouteGet(dst.AsSlice())
	if err != nil {
		return nil, fmt.Errorf("route to %s in netns %s: %w", dst, nsName, err)
	}
	if len(routes) == 0 {
		return nil, fmt.Errorf("no route to %s in netns %s", dst, nsName)
	}
	if routes[0].LinkIndex != l.Attrs().Index {
		return nil, fmt.Errorf("route to %s in netns %s leaves by link index %d, not %s", dst, nsName, routes[0].LinkIndex, l.Attrs().Name)
	}
	hop := dst
	if gw, ok := netip.AddrFromSlice(routes[0].Gw.To4()); ok {
		hop = gw
	}
	neighs, err := h.NeighList(l.Attrs().Index, netlink.FAMILY_V4)
	if err != nil {
		return nil, fmt.Errorf("list neighbours of %s in netns %s: %w", l.Attrs().Name, nsName, err)
	}
	for _, n := range neighs {
		usable := n.State&(netlink.NUD_INCOMPLETE|netlink.NUD_FAILED) == 0 && len(n.HardwareAddr) == 6
		if ip, ok := netip.AddrFromSlice(n.IP.To4()); ok && ip == hop && usable {
			return n.HardwareAddr, nil
		}
	}
	return nil, fmt.Errorf("no neighbour entry for next hop %s on %s in netns %s: raw frames need its MAC (add a permanent entry)", hop, l.Attrs().Name, nsName)
}
