package topo

import (
	"errors"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// DefaultClientIPv6 is the client pod's IPv6 address.
var DefaultClientIPv6 = netip.MustParseAddr("fd00:10:244:ffff::2")

// ErrNoAddressOfTargetKind says a service has no address of the path's
// target kind (no NodePort, external IP or load-balancer IP) in its family.
var ErrNoAddressOfTargetKind = errors.New("no address of the target kind")

// The external client's default addresses: documentation ranges, outside
// every default cluster range. A service's loadBalancerSourceRanges move
// the inside address into its first range (see externalAddrs).
var (
	defaultExternalInside   = netip.MustParseAddr("203.0.113.10")
	defaultExternalOutside  = netip.MustParseAddr("198.51.100.10")
	defaultExternalInside6  = netip.MustParseAddr("2001:db8:1::10")
	defaultExternalOutside6 = netip.MustParseAddr("2001:db8:2::10")
)

// Paths is the traffic path of a fairness run and the lab addresses it
// needs.
type Paths struct {
	scenario.FairnessPaths
	// NodeName is the node whose rules are rendered; endpoints of other
	// nodes live behind the lab's second node.
	NodeName         string
	NodeIP, NodeIPv6 netip.Addr
	// ExternalInside and ExternalOutside are the external client's
	// addresses inside and outside the services' source ranges, per family.
	ExternalInside, ExternalOutside [2]netip.Addr
}

// PathsFor derives the path of a fairness run and its lab addresses: the
// node's (the model's, else the lab's defaults) and the external client's.
func PathsFor(m *model.Model, targets model.Slice, fp scenario.FairnessPaths) Paths {
	p := Paths{FairnessPaths: fp, NodeName: m.Cluster.NodeName, NodeIP: m.Cluster.NodeIP, NodeIPv6: m.Cluster.NodeIPv6}
	if !p.NodeIP.Is4() {
		p.NodeIP = DefaultNodeIP
	}
	if !p.NodeIPv6.Is6() {
		p.NodeIPv6 = DefaultNodeIPv6
	}
	p.ExternalInside = [2]netip.Addr{insideAddr(targets, model.IPv4, defaultExternalInside), insideAddr(targets, model.IPv6, defaultExternalInside6)}
	p.ExternalOutside = [2]netip.Addr{defaultExternalOutside, defaultExternalOutside6}
	return p
}

// insideAddr is an address inside the first source range of family f among
// the targets (its first host), or def when none has one.
func insideAddr(targets model.Slice, f model.Family, def netip.Addr) netip.Addr {
	for i := range targets {
		for _, r := range targets[i].LoadBalancerSourceRanges {
			if f.Has(r.Addr()) {
				if a := r.Masked().Addr().Next(); r.Contains(a) && a.IsGlobalUnicast() {
					return a
				}
			}
		}
	}
	return def
}

// needsExternal and needsSecondNode say what the lab must add.
// NeedsExternal says the path needs the external client.
func (p Paths) NeedsExternal() bool { return p.From.External() }

// NeedsSecondNode says an endpoint of the targets lives behind the second node.
func (p Paths) NeedsSecondNode(targets model.Slice) bool {
	for i := range targets {
		for _, e := range targets[i].Endpoints {
			if p.Remote(e) {
				return true
			}
		}
	}
	return false
}

// Remote reports whether e lives on another node than the rendered one.
func (p Paths) Remote(e model.Endpoint) bool {
	return p.NodeName != "" && e.Node != "" && e.Node != p.NodeName
}

// ExternalIPs lists the external client's addresses.
func (p Paths) ExternalIPs() []netip.Addr {
	return []netip.Addr{p.ExternalInside[0], p.ExternalOutside[0], p.ExternalInside[1], p.ExternalOutside[1]}
}

// Source is the client address connections come from (zero: the kernel's
// choice, for a client on the node).
func (p Paths) Source(clientIP, clientIPv6 netip.Addr) netip.Addr {
	fam := int(p.Family)
	switch p.From {
	case scenario.FromExternal:
		return p.ExternalInside[fam]
	case scenario.FromExternalOutsideRange:
		return p.ExternalOutside[fam]
	case scenario.FromNode:
		return netip.Addr{}
	}
	if p.Family == model.IPv6 {
		return clientIPv6
	}
	return clientIP
}

// Address is what the connections to port of s go to for the target kind.
func (p Paths) Address(s *model.Service, svcPort model.Port) (netip.AddrPort, error) {
	port := uint16(svcPort.Port)
	var ip netip.Addr
	switch p.Target {
	case scenario.TargetNodePort:
		ip, port = p.NodeIP, uint16(svcPort.NodePort)
		if p.Family == model.IPv6 {
			ip = p.NodeIPv6
		}
	case scenario.TargetExternalIP:
		ip = first(s.ExternalIPs)
	case scenario.TargetLoadBalancer:
		ip = first(s.LoadBalancerIPs)
	default:
		ip = s.ClusterIP
	}
	if !ip.IsValid() || port == 0 || s.Skipped() {
		return netip.AddrPort{}, ErrNoAddressOfTargetKind
	}
	return netip.AddrPortFrom(ip, port), nil
}

func first(ips []netip.Addr) netip.Addr {
	if len(ips) == 0 {
		return netip.Addr{}
	}
	return ips[0]
}
