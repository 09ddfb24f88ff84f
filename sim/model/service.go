package model

import (
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// Protocol is a service port's L4 protocol as Kubernetes spells it.
type Protocol string

// The protocols kube-proxy programs.
const (
	TCP  Protocol = "TCP"
	UDP  Protocol = "UDP"
	SCTP Protocol = "SCTP"
)

// Lower returns the protocol as iptables and nftables spell it ("tcp").
func (p Protocol) Lower() string { return strings.ToLower(string(p)) }

// ServiceType is the Kubernetes Service type.
type ServiceType string

// The service types. kube-proxy writes no rules for ExternalName services
// (nor for headless ones, whose ClusterIP is not valid); see Skipped.
const (
	ClusterIP    ServiceType = "ClusterIP"
	NodePort     ServiceType = "NodePort"
	LoadBalancer ServiceType = "LoadBalancer"
	ExternalName ServiceType = "ExternalName"
)

// DefaultAffinityTimeout is Kubernetes' default ClientIP affinity timeout.
const DefaultAffinityTimeout = 10800

// Port is one port of a Service.
type Port struct {
	Name       string
	Protocol   Protocol
	Port       int
	TargetPort int
	NodePort   int // NodePort and LoadBalancer services (0: none allocated)
	// Unresolved marks a port no EndpointSlice port resolves (a named
	// targetPort no slice port of the port's name and protocol gives a
	// number): kube-proxy has no endpoints for it, whatever the service's
	// endpoints, and rejects its traffic. PortEndpoints and the other
	// per-port endpoint lists are empty for it.
	Unresolved bool
}

// Endpoint is one backend address of a Service. Its port for a given service
// port is that port's TargetPort, as an EndpointSlice port would give it.
//
// The three conditions are an EndpointSlice's: Ready (conditions.ready),
// Serving (conditions.serving) and Terminating (conditions.terminating). A
// ready endpoint is serving whatever Serving says (IsServing). kube-proxy
// uses the ready endpoints of a service, and falls back to the endpoints
// that are serving and terminating when none is ready.
//
// Zone is the endpoint's zone; ZoneHints and NodeHints are its
// EndpointSlice hints (hints.forZones, hints.forNodes), which kube-proxy's
// topology-aware routing uses.
type Endpoint struct {
	IP          netip.Addr
	Ready       bool
	Serving     bool
	Terminating bool
	Node        string
	Zone        string
	ZoneHints   []string
	NodeHints   []string
}

// IsServing reports whether the endpoint can take traffic: it is ready, or
// its serving condition is set (a terminating pod still serving).
func (e Endpoint) IsServing() bool { return e.Ready || e.Serving }

// Affinity is a Service's session affinity: ClientIP when Timeout > 0.
type Affinity struct {
	ClientIP bool
	Timeout  int // seconds
}

// Service is a Kubernetes Service and its endpoints.
//
// A dual-stack service has a ClusterIP of each family: ClusterIP is the
// primary one (spec.clusterIPs[0]) and SecondaryClusterIP the other.
// Endpoints, ExternalIPs, LoadBalancerIPs and LoadBalancerSourceRanges may
// mix families; ForFamily projects a model onto one family, as each of
// kube-proxy's per-family proxiers sees it. A headless service has no valid
// ClusterIP.
type Service struct {
	Namespace          string
	Name               string
	Type               ServiceType
	ClusterIP          netip.Addr
	SecondaryClusterIP netip.Addr
	Ports              []Port
	Affinity           Affinity
	Endpoints          []Endpoint

	// ExternalIPs is spec.externalIPs.
	ExternalIPs []netip.Addr
	// LoadBalancerIPs are status.loadBalancer.ingress[].ip of a
	// LoadBalancer service (ingress points whose ipMode is Proxy are left
	// out, as kube-proxy leaves them out).
	LoadBalancerIPs []netip.Addr
	// LoadBalancerSourceRanges is spec.loadBalancerSourceRanges.
	LoadBalancerSourceRanges []netip.Prefix
	// ExternalPolicyLocal is spec.externalTrafficPolicy: Local.
	ExternalPolicyLocal bool
	// InternalPolicyLocal is spec.internalTrafficPolicy: Local.
	InternalPolicyLocal bool
	// HealthCheckNodePort is spec.healthCheckNodePort (0: none).
	HealthCheckNodePort int
	// TrafficDistribution is spec.trafficDistribution ("" or e.g.
	// "PreferClose").
	TrafficDistribution string
}

// Skipped reports whether kube-proxy writes no rules for s: an
// ExternalName service, or one without a ClusterIP (headless, or none of
// the family a projection selected).
func (s *Service) Skipped() bool {
	return s.Type == ExternalName || !s.ClusterIP.IsValid() || s.ClusterIP.IsUnspecified()
}

// PortName is kube-proxy's ServicePortName string: "ns/name:port", or
// "ns/name" when the port has no name.
func (s *Service) PortName(p Port) string {
	if p.Name == "" {
		return s.Namespace + "/" + s.Name
	}
	return s.Namespace + "/" + s.Name + ":" + p.Name
}

// ReadyEndpoints returns the "IP:port" endpoints kube-proxy would use for
// port p, in kube-proxy's order: ready endpoints, sorted as strings.
func (s *Service) ReadyEndpoints(p Port) []string {
	if p.Unresolved {
		return []string{}
	}
	out := make([]string, 0, len(s.Endpoints))
	for _, e := range s.Endpoints {
		if e.Ready {
			out = append(out, EndpointString(e.IP, p.TargetPort))
		}
	}
	sort.Strings(out)
	return out
}

// ReadyCount returns how many endpoints are ready.
func (s *Service) ReadyCount() int {
	n := 0
	for _, e := range s.Endpoints {
		if e.Ready {
			n++
		}
	}
	return n
}

// EndpointString formats an endpoint as kube-proxy does: "IP:port", with
// brackets for IPv6.
func EndpointString(ip netip.Addr, port int) string {
	if ip.Is6() {
		return "[" + ip.String() + "]:" + strconv.Itoa(port)
	}
	return ip.String() + ":" + strconv.Itoa(port)
}

// SplitEndpoint parses an "IP:port" endpoint string back.
func SplitEndpoint(ep string) (netip.AddrPort, error) { return netip.ParseAddrPort(ep) }
