package nftables

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// syntax is how kube-proxy's proxier of one family spells its table: the
// nftables family ip or ip6, its address type and localhost matches.
type syntax struct {
	family       model.Family
	table        string // "ip kube-proxy" or "ip6 kube-proxy"
	ipX          string // "ip" or "ip6"
	addrType     string // "ipv4_addr" or "ipv6_addr"
	localhost    string // "ip daddr 127.0.0.0/8" or "ip6 daddr ::1"
	notLocalhost string // "ip daddr != 127.0.0.0/8" or "ip6 daddr != ::1"
}

var (
	syntaxIPv4 = syntax{model.IPv4, "ip kube-proxy", "ip", "ipv4_addr", "ip daddr 127.0.0.0/8", "ip daddr != 127.0.0.0/8"}
	syntaxIPv6 = syntax{model.IPv6, "ip6 kube-proxy", "ip6", "ipv6_addr", "ip6 daddr ::1", "ip6 daddr != ::1"}
)

// syntaxOf returns family f's syntax.
func syntaxOf(f model.Family) syntax {
	if f == model.IPv6 {
		return syntaxIPv6
	}
	return syntaxIPv4
}

// vmapKey is kube-proxy's concatenated dispatch key.
func (s syntax) vmapKey() string { return s.ipX + " daddr . meta l4proto . th dport vmap @" }

// nodePortAddresses is kube-proxy's NodePortAddresses of one family,
// resolved against the node's addresses.
type nodePortAddresses struct {
	// matchAll: NodePorts are accepted on every local address.
	matchAll bool
	// explicitLoopback: a CIDR names loopback itself (ContainsExplicitLoopback).
	explicitLoopback bool
	// ips are the node addresses the CIDRs hold, loopback left out (the
	// nodeport-ips elements).
	ips []netip.Addr
}

// resolveNodePorts resolves flags' --nodeport-addresses for family f as
// kube-proxy's NewNodePortAddresses and GetNodeIPs do on a node whose
// addresses are loopback and c.NodeIP: CIDRs of the other family are
// ignored; none left, or a zero-length one, means every address; the node
// IP is a NodePort address when a CIDR holds it.
func resolveNodePorts(c model.Cluster, flags render.Flags, f model.Family) nodePortAddresses {
	var cidrs []netip.Prefix
	for _, p := range flags.NodePortAddresses {
		if f.Has(p.Addr()) {
			cidrs = append(cidrs, p)
		}
	}
	if flags.NodePortPrimary && f.Has(c.NodeIP) {
		cidrs = append(cidrs, netip.PrefixFrom(c.NodeIP, c.NodeIP.BitLen()))
	}
	var npa nodePortAddresses
	if len(cidrs) == 0 {
		npa.matchAll = true
		return npa
	}
	for _, p := range cidrs {
		if p.Masked().Addr().IsLoopback() {
			npa.explicitLoopback = true
		}
	}
	for _, p := range cidrs {
		if p.Bits() == 0 {
			npa.matchAll = true
			return npa
		}
	}
	if ip := c.NodeIP; f.Has(ip) && !ip.IsLoopback() {
		for _, p := range cidrs {
			if p.Masked().Contains(ip) {
				npa.ips = append(npa.ips, ip)
				break
			}
		}
	}
	return npa
}
