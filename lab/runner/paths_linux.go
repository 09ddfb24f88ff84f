package runner

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
	"github.com/svclab/svclab/sim/scenario"
)

// The external client's default addresses: documentation ranges, outside
// every default cluster range. A service's loadBalancerSourceRanges move
// the inside address into its first range (see externalAddrs).
var (
	defaultExternalInside    = netip.MustParseAddr("203.0.113.10")
	defaultExternalOutside   = netip.MustParseAddr("198.51.100.10")
	defaultExternalInside6   = netip.MustParseAddr("2001:db8:1::10")
	defaultExternalOutside6  = netip.MustParseAddr("2001:db8:2::10")
	defaultClientIPv6        = netip.MustParseAddr("fd00:10:244:ffff::2")
	errNoAddressOfTargetKind = fmt.Errorf("no address of the target kind")
)

// Route is how one fairness target is reached on a run's path: the address
// connected to, the client address connected from, and the endpoints the
// rules promise to send the connections to (none: they promise to drop
// them), as sim/route traces them.
type Route struct {
	Address  netip.AddrPort
	Source   netip.Addr
	Expected []string
	Dropped  bool
}

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

// pathsFor derives the path of a fairness run and its lab addresses: the
// node's (the model's, else the lab's defaults) and the external client's.
func pathsFor(m *model.Model, targets model.Slice, fp scenario.FairnessPaths) Paths {
	p := Paths{FairnessPaths: fp, NodeName: m.Cluster.NodeName, NodeIP: m.Cluster.NodeIP, NodeIPv6: m.Cluster.NodeIPv6}
	if !p.NodeIP.Is4() {
		p.NodeIP = topo.DefaultNodeIP
	}
	if !p.NodeIPv6.Is6() {
		p.NodeIPv6 = topo.DefaultNodeIPv6
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
func (p Paths) needsExternal() bool { return p.From.External() }

func (p Paths) needsSecondNode(targets model.Slice) bool {
	for i := range targets {
		for _, e := range targets[i].Endpoints {
			if p.remote(e) {
				return true
			}
		}
	}
	return false
}

// remote reports whether e lives on another node than the rendered one.
func (p Paths) remote(e model.Endpoint) bool {
	return p.NodeName != "" && e.Node != "" && e.Node != p.NodeName
}

// externalIPs lists the external client's addresses.
func (p Paths) externalIPs() []netip.Addr {
	return []netip.Addr{p.ExternalInside[0], p.ExternalOutside[0], p.ExternalInside[1], p.ExternalOutside[1]}
}

// source is the client address connections come from (zero: the kernel's
// choice, for a client on the node).
func (p Paths) source(clientIP, clientIPv6 netip.Addr) netip.Addr {
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

// routeWith resolves target t (a service already projected onto the run's
// family) on the run's path by tracing the rules of the oracle, those of
// the mode its dataplane follows (route.ModeOf).
func (p Paths) routeWith(o *route.Oracle, t fairnessTarget, clientIP, clientIPv6 netip.Addr) (Route, error) {
	addr, err := p.address(t)
	if err != nil {
		return Route{}, fmt.Errorf("service %s has %w %s of family %s", t.Name(), errNoAddressOfTargetKind, p.Target, p.Family)
	}
	r := Route{Address: addr, Source: p.source(clientIP, clientIPv6)}
	from := route.FromPod
	if p.From == scenario.FromNode {
		from = route.FromNode
	}
	a, err := o.Route(route.Query{Dst: addr, Proto: t.Port.Protocol, From: from, Src: r.Source})
	if err != nil {
		return Route{}, fmt.Errorf("service %s: %w", t.Name(), err)
	}
	if !a.Dropped {
		r.Expected = a.Addrs()
	}
	r.Dropped = a.Dropped
	return r, nil
}

// address is what the connections go to for the target kind.
func (p Paths) address(t fairnessTarget) (netip.AddrPort, error) {
	s, port := t.Service, uint16(t.Port.Port)
	var ip netip.Addr
	switch p.Target {
	case scenario.TargetNodePort:
		ip, port = p.NodeIP, uint16(t.Port.NodePort)
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
		return netip.AddrPort{}, errNoAddressOfTargetKind
	}
	return netip.AddrPortFrom(ip, port), nil
}

func first(ips []netip.Addr) netip.Addr {
	if len(ips) == 0 {
		return netip.Addr{}
	}
	return ips[0]
}
