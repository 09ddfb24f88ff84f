package model

import (
	"fmt"
	"net/netip"
)

// Cluster holds the cluster-wide settings that shape kube-proxy's rules.
type Cluster struct {
	// ClusterCIDR is the pod CIDR of kube-proxy's local-traffic detector:
	// traffic from outside it to a ClusterIP is masqueraded (`! -s CIDR`).
	ClusterCIDR netip.Prefix
	// ServiceCIDR is where ClusterIPs are allocated.
	ServiceCIDR netip.Prefix
	// MasqueradeBit is the fwmark bit kube-proxy uses (default 14: 0x4000).
	MasqueradeBit int
	// NodeName is the name of the node the rules are rendered for.
	NodeName string
	// NodeZone is that node's topology.kubernetes.io/zone label ("":
	// none), which topology-aware routing compares with endpoint hints.
	NodeZone string
	// NodeIP is the node's primary address of the model's family
	// (kube-proxy's --bind-address / node IP), NodeIPv6 the IPv6 one of a
	// dual-stack node. ForFamily moves the selected family's into NodeIP.
	NodeIP   netip.Addr
	NodeIPv6 netip.Addr
	// ClusterCIDRv6 and ServiceCIDRv6 are the IPv6 pod and service CIDRs
	// of a dual-stack or IPv6 cluster (ForFamily moves them into
	// ClusterCIDR and ServiceCIDR).
	ClusterCIDRv6 netip.Prefix
	ServiceCIDRv6 netip.Prefix
}

// DefaultCluster returns kube-proxy's defaults as svclab uses them.
func DefaultCluster() Cluster {
	return Cluster{
		ClusterCIDR:   netip.MustParsePrefix("10.0.0.0/8"),
		ServiceCIDR:   netip.MustParsePrefix("10.96.0.0/12"),
		MasqueradeBit: 14,
		NodeName:      "node-1",
	}
}

// MasqueradeMark returns the mark as kube-proxy formats it
// (fmt.Sprintf("%#08x", 1<<bit)), e.g. "0x00004000".
func (c Cluster) MasqueradeMark() string {
	return fmt.Sprintf("%#08x", uint32(1)<<uint(c.MasqueradeBit))
}

// Model is the whole input of a renderer: the cluster and its services in
// rendering order, seen by the proxier of one family (Family; the zero
// value is IPv4). Services of a dual-stack model carry both families'
// addresses until ForFamily projects them.
type Model struct {
	Cluster  Cluster
	Services List
	Family   Family
}

// List is an ordered, indexable collection of services. At may build the
// service on demand; callers must not keep the pointer beyond their use.
type List interface {
	Len() int
	At(i int) *Service
}

// Slice is a List held in memory.
type Slice []Service

// Len returns the number of services.
func (s Slice) Len() int { return len(s) }

// At returns service i.
func (s Slice) At(i int) *Service { return &s[i] }

// Materialize returns l held in memory: l itself when it is a Slice, else
// each service built once (a generator's List builds them on each At).
func Materialize(l List) Slice {
	if s, ok := l.(Slice); ok {
		return s
	}
	out := make(Slice, l.Len())
	for i := range out {
		out[i] = *l.At(i)
	}
	return out
}

// TotalEndpoints sums endpoints over every service port, ready or not, as
// kube-proxy does to decide on large-cluster mode (the sum over the
// service ports it proxies of len(endpointsMap[servicePort]); see
// Service.ProxiedEndpoints).
func TotalEndpoints(l List) int {
	if c, ok := l.(interface{ TotalEndpoints() int }); ok {
		return c.TotalEndpoints()
	}
	total := 0
	for i := 0; i < l.Len(); i++ {
		total += l.At(i).ProxiedEndpoints()
	}
	return total
}

// ProxiedEndpoints is s's share of TotalEndpoints: EndpointCount times its
// resolved ports, or 0 when kube-proxy skips s (its endpoints are in no
// service port kube-proxy counts).
func (s *Service) ProxiedEndpoints() int {
	if s.Skipped() {
		return 0
	}
	ports := 0
	for i := range s.Ports {
		if !s.Ports[i].Unresolved {
			ports++
		}
	}
	return s.EndpointCount() * ports
}
