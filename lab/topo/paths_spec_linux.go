package topo

import (
	"fmt"
	"net/netip"
)

// External is the external client: a namespace outside the cluster,
// joined to the node by a veth like a node's uplink, from which NodePorts,
// externalIPs and load-balancer IPs are reached. It routes everything to
// the node and the node routes each of its addresses back.
type External struct {
	// IPs are its addresses, of either family, at least one; a connection
	// picks its source among them (e.g. one inside and one outside a
	// service's loadBalancerSourceRanges).
	IPs []netip.Addr
}

// SecondNode is a second cluster node: a namespace with its own pods,
// joined to the node by a node-to-node link. The node's rules send traffic
// to its pods over that link, as to a remote endpoint in a cluster.
type SecondNode struct {
	// NodeIP and NodeIPv6 are its addresses; zero means
	// DefaultSecondNodeIP and DefaultSecondNodeIPv6.
	NodeIP, NodeIPv6 netip.Addr
}

var (
	// DefaultNodeIP and DefaultNodeIPv6 are the node's addresses when a lab
	// with an external client or a second node sets none: outside
	// Kubernetes' default cluster CIDR, so traffic from the node is not
	// mistaken for pod traffic.
	DefaultNodeIP   = netip.MustParseAddr("192.168.99.1")
	DefaultNodeIPv6 = netip.MustParseAddr("fd00:99::1")
	// DefaultSecondNodeIP and DefaultSecondNodeIPv6 are the second node's.
	DefaultSecondNodeIP   = netip.MustParseAddr("192.168.99.2")
	DefaultSecondNodeIPv6 = netip.MustParseAddr("fd00:99::2")
	// GatewayIPv6 is the IPv6 next hop every pod routes through: a
	// link-local address whose neighbour entry names the node-side veth,
	// as Calico's pods route through fe80::ecee:eeff:feee:eeee.
	GatewayIPv6 = netip.MustParseAddr("fe80::1")
	// peerNextHop and peerNextHopIPv6 are the next hops of the node's
	// routes to the second node's pods, peerBackHop the second node's next
	// hop back (the node's own GatewayIP would be a local address there).
	peerNextHop     = netip.MustParseAddr("169.254.1.4")
	peerNextHopIPv6 = netip.MustParseAddr("fe80::4")
	peerBackHop     = netip.MustParseAddr("169.254.1.5")
	linkLocalIPv6   = netip.MustParsePrefix("fe80::/10")
)

// addrOwners maps each address of a spec to what owns it, to refuse a
// second owner.
type addrOwners map[netip.Addr]string

func (o addrOwners) claim(label string, ips ...netip.Addr) error {
	for _, ip := range ips {
		if !ip.IsValid() {
			continue
		}
		if other, dup := o[ip]; dup {
			return fmt.Errorf("%s: address %s already used by %s", label, ip, other)
		}
		o[ip] = label
	}
	return nil
}

// validatePaths checks the client's IPv6 address, the node addresses, the
// external client and the second node.
func (s Spec) validatePaths(seen addrOwners) error {
	if err := optionalIPv6("client", s.ClientIPv6); err != nil {
		return err
	}
	if err := seen.claim("client", s.ClientIPv6); err != nil {
		return err
	}
	if err := optionalNodeIPs("node", s.NodeIP, s.NodeIPv6, seen); err != nil {
		return err
	}
	if n := s.SecondNode; n != nil {
		if err := optionalNodeIPs("second node", n.NodeIP, n.NodeIPv6, seen); err != nil {
			return err
		}
	}
	if e := s.External; e != nil {
		if len(e.IPs) == 0 {
			return fmt.Errorf("external client: needs at least one address")
		}
		for _, ip := range e.IPs {
			if err := checkUnicast("external client", ip); err != nil {
				return err
			}
		}
		if err := seen.claim("external client", e.IPs...); err != nil {
			return err
		}
	}
	return nil
}

func optionalNodeIPs(label string, ip, ip6 netip.Addr, seen addrOwners) error {
	if ip.IsValid() {
		if err := checkUnicastIPv4(label, ip); err != nil {
			return err
		}
	}
	if err := optionalIPv6(label, ip6); err != nil {
		return err
	}
	return seen.claim(label, ip, ip6)
}

// validatePod checks a pod's addresses and its node.
func (s Spec) validatePod(label string, pod Pod, seen addrOwners) error {
	if pod.IP.IsValid() || !pod.IPv6.IsValid() {
		if err := checkUnicastIPv4(label, pod.IP); err != nil {
			return err
		}
	}
	if err := optionalIPv6(label, pod.IPv6); err != nil {
		return err
	}
	if pod.OnSecondNode && s.SecondNode == nil {
		return fmt.Errorf("%s: on the second node, but the spec has no SecondNode", label)
	}
	return seen.claim(label, pod.IP, pod.IPv6)
}

func optionalIPv6(label string, ip netip.Addr) error {
	if !ip.IsValid() {
		return nil
	}
	if !ip.Is6() || ip.Is4In6() || !ip.IsGlobalUnicast() || linkLocalIPv6.Contains(ip) {
		return fmt.Errorf("%s: address %s is not a usable IPv6 unicast address", label, ip)
	}
	return nil
}

// checkUnicast accepts a usable unicast address of either family.
func checkUnicast(label string, ip netip.Addr) error {
	if ip.Is6() && !ip.Is4In6() {
		return optionalIPv6(label, ip)
	}
	return checkUnicastIPv4(label, ip)
}

// validAddrs returns the valid ones of ips, in order.
func validAddrs(ips ...netip.Addr) []netip.Addr {
	var out []netip.Addr
	for _, ip := range ips {
		if ip.IsValid() {
			out = append(out, ip)
		}
	}
	return out
}
