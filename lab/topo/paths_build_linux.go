package topo

import (
	"fmt"
	"net/netip"

	"github.com/vishvananda/netlink"

	"github.com/svclab/svclab/lab/netns"
)

// buildExternal makes the external client when the spec asks for one: a
// namespace on a veth from the node, like the network beyond a node's
// uplink, with every address of the spec on its eth0 and its default
// routes through the node, which routes each address back.
func (b *builder) buildExternal(t *Topology) error {
	e := b.spec.External
	if e == nil {
		return nil
	}
	t.ExternalNetns, t.ExternalVeth = externalNetnsName(b.spec.Prefix), externalVethName(b.spec.Prefix)
	t.ExternalIPs = append([]netip.Addr(nil), e.IPs...)
	j, err := b.attach(attachment{netns: t.ExternalNetns, hostVeth: t.ExternalVeth, ips: e.IPs, sysctls: clientSysctls})
	if err != nil {
		return err
	}
	defer j.close()
	return b.routeToPod(j, e.IPs...)
}

// buildSecondNode makes the second node when the spec asks for one and
// returns a builder bound to it (nil without one), which the caller closes.
// The second node is a router like the node: its loopback owns GatewayIP
// for its own pods and its node addresses; its default routes lead back
// over the node-to-node link, and the node routes the second node's
// addresses (and later its pods') over the same link.
func (b *builder) buildSecondNode(t *Topology) (*builder, error) {
	n := b.spec.SecondNode
	if n == nil {
		return nil, nil
	}
	name := secondNodeNetnsName(b.spec.Prefix)
	t.SecondNodeNetns, t.PeerLink = name, peerLinkName(b.spec.Prefix)
	t.SecondNodeIP, t.SecondNodeIPv6 = n.NodeIP, n.NodeIPv6
	j, err := b.attach(attachment{netns: name, hostVeth: t.PeerLink, sysctls: forwardSysctls, gateway: peerBackHop})
	if err != nil {
		return nil, err
	}
	defer j.close()
	link := j.hostLink.Attrs().Index
	mac := j.podLink.Attrs().HardwareAddr
	for _, hop := range []netip.Addr{peerNextHop, peerNextHopIPv6} {
		if err := addNeighbour(b.node, b.nodeNetns, link, hop, mac); err != nil {
			return nil, err
		}
	}
	peer, err := b.openPeer(name, validAddrs(n.NodeIP, n.NodeIPv6))
	if err != nil {
		return nil, err
	}
	if err := b.routeToPeer(link, n.NodeIP, n.NodeIPv6); err != nil {
		peer.close()
		return nil, err
	}
	return peer, nil
}

// openPeer returns a builder bound to the second node's namespace, whose
// loopback it brings up with GatewayIP and addrs.
func (b *builder) openPeer(name string, addrs []netip.Addr) (*builder, error) {
	ns, err := netns.Open(name)
	if err != nil {
		return nil, err
	}
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		ns.Close()
		return nil, fmt.Errorf("netlink handle for netns %s: %w", name, err)
	}
	peer := &builder{spec: b.spec, teardown: b.teardown, nodeNetns: name, nodeNs: ns, node: h}
	if err := peer.setUpLoopback(addrs...); err != nil {
		peer.close()
		return nil, err
	}
	return peer, nil
}

// routeToPeer makes the node reach ips over the node-to-node link whose
// node end has index link: through peerNextHop onlink for IPv4 and the
// link-local peerNextHopIPv6 for IPv6, both permanent neighbours.
func (b *builder) routeToPeer(link int, ips ...netip.Addr) error {
	for _, ip := range validAddrs(ips...) {
		route := &netlink.Route{LinkIndex: link, Dst: hostPrefix(ip), Gw: peerNextHop.AsSlice(), Flags: int(netlink.FLAG_ONLINK)}
		if ip.Is6() {
			route = &netlink.Route{LinkIndex: link, Dst: hostPrefix(ip), Gw: peerNextHopIPv6.AsSlice()}
		}
		if err := addRoute(b.node, b.nodeNetns, route); err != nil {
			return err
		}
	}
	return nil
}

// buildPodOn makes the index-th pod on the node, or behind the second node
// (peer) when the pod asks for it; the node then routes the pod's
// addresses over the node-to-node link.
func (b *builder) buildPodOn(peer *builder, pod Pod, index int) (PodNetns, error) {
	if !pod.OnSecondNode {
		return b.buildPod(pod, index)
	}
	p, err := peer.buildPod(pod, index)
	if err != nil {
		return p, err
	}
	link, err := b.node.LinkByName(peerLinkName(b.spec.Prefix))
	if err != nil {
		return p, fmt.Errorf("find link %s in netns %s: %w", peerLinkName(b.spec.Prefix), b.nodeNetns, err)
	}
	return p, b.routeToPeer(link.Attrs().Index, pod.Addrs()...)
}
