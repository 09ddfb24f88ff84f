package iptables

import (
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// project returns s as the proxier of family f sees it. A service whose
// addresses are all of f (the common case, and every service of a model
// ForFamily already projected) is returned as it is, without a copy.
func project(s *model.Service, f model.Family) *model.Service {
	if ofFamily(s, f) {
		return s
	}
	p := model.ProjectService(s, f)
	return &p
}

func ofFamily(s *model.Service, f model.Family) bool {
	if s.SecondaryClusterIP.IsValid() || (s.ClusterIP.IsValid() && !f.Has(s.ClusterIP)) {
		return false
	}
	for i := range s.Endpoints {
		if !f.Has(s.Endpoints[i].IP) {
			return false
		}
	}
	for _, a := range s.ExternalIPs {
		if !f.Has(a) {
			return false
		}
	}
	for _, a := range s.LoadBalancerIPs {
		if !f.Has(a) {
			return false
		}
	}
	for _, p := range s.LoadBalancerSourceRanges {
		if !f.Has(p.Addr()) {
			return false
		}
	}
	return true
}

// nodePorts is how kube-proxy's NodePortAddresses and localhostNodePorts
// come out for one family's proxier.
type nodePorts struct {
	// matchAll: --nodeport-addresses selects every local address (none of
	// this family given, or a zero-length prefix among them).
	matchAll bool
	// addrs are the node's addresses the CIDRs select (when !matchAll),
	// as GetNodeIPs finds them on the driver's render-mode network: the
	// loopback address and the node IP.
	addrs []netip.Addr
	// localhost is the effective --iptables-localhost-nodeports: kube-proxy
	// turns it off unless the CIDRs hold an IPv4 loopback address (so
	// always for IPv6).
	localhost bool
}

// loopback is the loopback address of the driver's (and a node's) lo of
// family f, as kube-proxy lists it with the interface addresses.
func loopback(f model.Family) netip.Addr {
	if f == model.IPv6 {
		return netip.IPv6Loopback()
	}
	return netip.AddrFrom4([4]byte{127, 0, 0, 1})
}

// newNodePorts is NewNodePortAddresses(family, --nodeport-addresses) and
// GetNodeIPs for cluster c (one family's settings) and kube-proxy's flags.
func newNodePorts(c model.Cluster, flags render.Flags, f model.Family) nodePorts {
	var cidrs []netip.Prefix
	for _, p := range flags.NodePortAddresses {
		if f.Has(p.Addr()) {
			cidrs = append(cidrs, p.Masked())
		}
	}
	if flags.NodePortPrimary && f.Has(c.NodeIP) {
		cidrs = append(cidrs, netip.PrefixFrom(c.NodeIP, c.NodeIP.BitLen()))
	}
	np := nodePorts{matchAll: len(cidrs) == 0}
	lo4 := netip.AddrFrom4([4]byte{127, 0, 0, 0})
	for _, p := range cidrs {
		if p.Bits() == 0 {
			np.matchAll = true
		}
		if f == model.IPv4 && (p.Addr().IsLoopback() || p.Contains(lo4)) {
			np.localhost = true
		}
	}
	if len(cidrs) == 0 {
		np.localhost = f == model.IPv4
	}
	np.localhost = np.localhost && !flags.NoLocalhostNodePorts
	if np.matchAll {
		return np
	}
	local := []netip.Addr{loopback(f)}
	if f.Has(c.NodeIP) {
		local = append(local, c.NodeIP)
	}
	for _, a := range local {
		if slices.ContainsFunc(cidrs, func(p netip.Prefix) bool { return p.Contains(a) }) {
			np.addrs = append(np.addrs, a)
		}
	}
	return np
}
