package model

import (
	"fmt"
	"math"
	"net/netip"
)

// Mix is the shape of a synthetic cluster: how its services divide among
// types, traffic policies, IP families and other features, and how many
// endpoints and ports each has. A Generator with a Mix builds services of
// that shape; without one it builds its classic uniform ClusterIP services.
//
// Choices are deterministic: service i's choice of each attribute comes
// from its own low-discrepancy (Weyl) sequence, so the shares of any prefix
// of the services are within one service of the weights, and the
// attributes are independent of each other.
type Mix struct {
	// Types weighs ClusterIP, NodePort and LoadBalancer (nil: all ClusterIP).
	Types []Weighted[ServiceType]
	// Families weighs IPv4, IPv6 and dual-stack services (nil: all IPv4).
	Families []Weighted[FamilyMix]
	// Endpoints weighs endpoint counts per service (of each family); nil:
	// the generator's EndpointsPerService.
	Endpoints []Weighted[int]
	// Ports weighs port counts per service (nil: one port).
	Ports []Weighted[int]
	// ExternalLocal is the share of externally accessible services
	// (NodePort, LoadBalancer, or with an external IP) whose
	// externalTrafficPolicy is Local; InternalLocal the share of all
	// services with internalTrafficPolicy Local.
	ExternalLocal, InternalLocal float64
	// Affinity is the share of services with ClientIP session affinity.
	Affinity float64
	// ExternalIPs is the share of services with one external IP.
	ExternalIPs float64
	// SourceRanges is the share of LoadBalancer services with
	// loadBalancerSourceRanges.
	SourceRanges float64
	// RemoteEndpoints is the share of endpoints on another node than the
	// rendered one (node-1); they are not local to it.
	RemoteEndpoints float64
}

// Weighted is one choice of a Mix attribute and its weight (weights need
// not sum to 1).
type Weighted[T any] struct {
	Value  T
	Weight float64
}

// FamilyMix is a service's IP family choice.
type FamilyMix string

// The family choices of a Mix.
const (
	SingleIPv4 FamilyMix = "IPv4"
	SingleIPv6 FamilyMix = "IPv6"
	DualStack  FamilyMix = "DualStack"
)

// RemoteNode is the node the Mix's remote endpoints run on.
const RemoteNode = "node-2"

// Defaults of a Mix's IPv6 and external addresses.
var (
	DefaultServiceCIDRv6  = netip.MustParsePrefix("fd00:10:96::/108")
	DefaultEndpointCIDRv6 = netip.MustParsePrefix("fd00:10:128::/96")
	// DefaultExternalCIDR holds the Mix's load-balancer and external IPs.
	DefaultExternalCIDR   = netip.MustParsePrefix("172.16.0.0/12")
	DefaultExternalCIDRv6 = netip.MustParsePrefix("fd00:172:16::/96")
	mixSourceRange        = netip.MustParsePrefix("203.0.113.0/24")
	mixSourceRangeV6      = netip.MustParsePrefix("2001:db8::/32")
)

// Validate reports a weight or share that is not usable.
func (m *Mix) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"externalLocal", m.ExternalLocal}, {"internalLocal", m.InternalLocal}, {"affinity", m.Affinity},
		{"externalIPs", m.ExternalIPs}, {"sourceRanges", m.SourceRanges}, {"remoteEndpoints", m.RemoteEndpoints}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return fmt.Errorf("mix %s %g: a share is 0..1", f.name, f.v)
		}
	}
	if err := checkWeights("types", m.Types); err != nil {
		return err
	}
	if err := checkWeights("families", m.Families); err != nil {
		return err
	}
	if err := checkWeights("endpoints", m.Endpoints); err != nil {
		return err
	}
	return checkWeights("ports", m.Ports)
}

func checkWeights[T any](name string, ws []Weighted[T]) error {
	if ws == nil {
		return nil
	}
	total := 0.0
	for _, w := range ws {
		if math.IsNaN(w.Weight) || math.IsInf(w.Weight, 0) || w.Weight < 0 {
			return fmt.Errorf("mix %s: weight %g of %v is not a finite number ≥ 0", name, w.Weight, w.Value)
		}
		total += w.Weight
	}
	if total <= 0 {
		return fmt.Errorf("mix %s: the weights sum to 0", name)
	}
	return nil
}

// weyl is attribute k's sequence: frac(offset + n·α) with α a distinct
// irrational per attribute.
func weyl(k int, seed uint64, n uint64) float64 {
	alphas := [...]float64{0.6180339887498949, 0.4142135623730951, 0.7320508075688772, 0.2360679774997898,
		0.6457513110645907, 0.3166247903554, 0.6055512754639891, 0.1231056256176606, 0.3588989435406736}
	a := alphas[k%len(alphas)]
	off := float64((seed*0x9e3779b97f4a7c15+uint64(k)*0xbf58476d1ce4e5b9)>>11) / (1 << 53)
	_, f := math.Modf(off + float64(n)*a)
	return f
}

// pick returns the choice u (in [0,1)) falls on, by cumulative weight.
func pick[T any](ws []Weighted[T], u float64) T {
	total := 0.0
	for _, w := range ws {
		total += w.Weight
	}
	acc := 0.0
	for _, w := range ws {
		acc += w.Weight / total
		if u < acc && w.Weight > 0 {
			return w.Value
		}
	}
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].Weight > 0 {
			return ws[i].Value
		}
	}
	var zero T
	return zero
}

// The attributes' sequence numbers.
const (
	attrType = iota
	attrFamily
	attrEndpoints
	attrPorts
	attrExternalLocal
	attrInternalLocal
	attrAffinity
	attrExternalIPs
	attrSourceRanges
)

// endpointsOf is service i's endpoint count under the mix.
func (m *Mix) endpointsOf(i int, seed uint64, fixed int) int {
	if m.Endpoints == nil {
		return fixed
	}
	return pick(m.Endpoints, weyl(attrEndpoints, seed, uint64(i)))
}

// maxPorts is the largest port count the mix gives a service.
func (m *Mix) maxPorts() int {
	n := 1
	for _, w := range m.Ports {
		n = max(n, w.Value)
	}
	return n
}

// hasNodePorts reports whether the mix makes NodePort or LoadBalancer
// services, which need node ports.
func (m *Mix) hasNodePorts() bool {
	for _, w := range m.Types {
		if (w.Value == NodePort || w.Value == LoadBalancer) && w.Weight > 0 {
			return true
		}
	}
	return false
}

// Node ports of mixed services: service i owns the slots
// [i*stride, (i+1)*stride) above firstMixNodePort, one per port and the
// last for its health check node port, so no two services share one.
const (
	firstMixNodePort = 20000
	lastMixNodePort  = 65535
)

// mixNodePortStride is how many node ports a mixed service owns.
func (m *Mix) mixNodePortStride() int { return m.maxPorts() + 1 }

// MaxServicesWithNodePorts is how many services a mix with NodePort or
// LoadBalancer services can make before its node ports run out.
func (m *Mix) MaxServicesWithNodePorts() int {
	return (lastMixNodePort - firstMixNodePort + 1) / m.mixNodePortStride()
}

func (m *Mix) portsOf(i int, seed uint64) int {
	if m.Ports == nil {
		return 1
	}
	return max(1, pick(m.Ports, weyl(attrPorts, seed, uint64(i))))
}

// NodePortsWithoutEndpoints is a mix of one-port NodePort services without
// endpoints: kube-proxy's iptables mode rejects each NodePort with an
// addrtype rule (render/iptables' NodePortRejects, sweep.addrTypeProbe).
func NodePortsWithoutEndpoints() *Mix {
	return &Mix{Types: []Weighted[ServiceType]{{Value: NodePort, Weight: 1}}, Endpoints: []Weighted[int]{{Value: 0, Weight: 1}}}
}
