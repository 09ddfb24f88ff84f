package topo

import (
	"fmt"
	"net/netip"
	"regexp"

	"github.com/svclab/svclab/sim/scenario"
)

// Spec describes the topology of one run.
type Spec struct {
	// Prefix names every object of the run, e.g. "svl-3f9a" (see NewPrefix).
	Prefix string
	// Pods are the real backend pods, one namespace each.
	Pods []Pod
	// SinkPrefixes are filler endpoint ranges owned by one sink pod through
	// a local (AnyIP) route; empty means no sink pod. A real pod's or the
	// client's address inside a range still reaches that pod or client.
	SinkPrefixes []netip.Prefix
	// ClientIP is the client's address; zero means DefaultClientIP.
	ClientIP netip.Addr
	// ClientOnNode puts the client in the node namespace instead of a pod:
	// its connections take the OUTPUT path rather than PREROUTING.
	ClientOnNode bool
	// ServiceCIDRs are the ranges ClusterIPs come from; empty means
	// DefaultServiceCIDR. They matter only with ClientOnNode, where the node
	// needs a route to a ClusterIP before its OUTPUT chain can DNAT it.
	ServiceCIDRs []netip.Prefix
	// ClientIPv6 is the client's IPv6 address; zero means none (with
	// ClientOnNode it lives on the node, like ClientIP).
	ClientIPv6 netip.Addr
	// NodeIP and NodeIPv6 are the node's own addresses (kube-proxy's node
	// IPs), on its loopback: what NodePorts are reached at and what the node
	// masquerades to. Zero means none; External and SecondNode default
	// them to DefaultNodeIP and DefaultNodeIPv6.
	NodeIP, NodeIPv6 netip.Addr
	// External, when set, adds the external client namespace on the node's
	// uplink (see External).
	External *External
	// SecondNode, when set, adds a second node namespace joined to the node
	// by a node-to-node link; pods with OnSecondNode live behind it.
	SecondNode *SecondNode
}

// Pod is one real backend pod.
type Pod struct {
	// Name names the pod's namespace (<prefix>-<name>); empty means p<index>.
	Name string
	// IP is the pod's IPv4 address; zero for an IPv6-only pod.
	IP netip.Addr
	// IPv6 is the pod's IPv6 address; zero for an IPv4-only pod.
	IPv6 netip.Addr
	// OnSecondNode puts the pod behind the second node (Spec.SecondNode).
	OnSecondNode bool
}

// Addrs lists the pod's addresses, IPv4 first.
func (p Pod) Addrs() []netip.Addr { return validAddrs(p.IP, p.IPv6) }

var (
	// DefaultClientIP is the client pod's address when Spec.ClientIP is zero.
	DefaultClientIP = netip.MustParseAddr(scenario.ClientPodIP) // one fact, defined where validation needs it
	// DefaultServiceCIDR is Kubernetes' default service range.
	DefaultServiceCIDR = netip.MustParsePrefix("10.96.0.0/12")
	// GatewayIP is the link-local next hop every pod routes through; the
	// node owns it.
	GatewayIP = netip.MustParseAddr("169.254.1.1")
	// sinkNextHop is the node's next hop for the sink ranges; only a
	// permanent neighbour entry gives it meaning.
	sinkNextHop = netip.MustParseAddr("169.254.1.2")
	// uplinkNextHop is the node's next hop for the service ranges when the
	// client is on the node (see addServiceUplink).
	uplinkNextHop = netip.MustParseAddr("169.254.1.3")
	linkLocal     = netip.MustParsePrefix("169.254.0.0/16")
)

// uplinkRulePriority is where the node's rule for the uplink's far end sits,
// ahead of the main table (32766).
const uplinkRulePriority = 100

var podNamePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$`)

// reservedPodNames would collide with the namespaces Build makes itself.
var reservedPodNames = map[string]bool{"node": true, "cli": true, "sink": true, "ext": true, "node2": true}

// withDefaults fills in the zero fields of spec.
func (s Spec) withDefaults() Spec {
	if !s.ClientIP.IsValid() {
		s.ClientIP = DefaultClientIP
	}
	if len(s.ServiceCIDRs) == 0 {
		s.ServiceCIDRs = []netip.Prefix{DefaultServiceCIDR}
	}
	if s.External != nil || s.SecondNode != nil {
		if !s.NodeIP.IsValid() {
			s.NodeIP = DefaultNodeIP
		}
		if !s.NodeIPv6.IsValid() {
			s.NodeIPv6 = DefaultNodeIPv6
		}
	}
	if n := s.SecondNode; n != nil {
		c := *n
		if !c.NodeIP.IsValid() {
			c.NodeIP = DefaultSecondNodeIP
		}
		if !c.NodeIPv6.IsValid() {
			c.NodeIPv6 = DefaultSecondNodeIPv6
		}
		s.SecondNode = &c
	}
	return s
}

// validate reports the first thing in spec that Build cannot honour.
func (s Spec) validate() error {
	if err := validatePrefix(s.Prefix, len(s.Pods)); err != nil {
		return err
	}
	if err := checkUnicastIPv4("client", s.ClientIP); err != nil {
		return err
	}
	seen := addrOwners{}
	if err := seen.claim("client", s.ClientIP); err != nil {
		return err
	}
	if err := s.validatePaths(seen); err != nil {
		return err
	}
	seenNetns := map[string]bool{}
	for i, pod := range s.Pods {
		label := fmt.Sprintf("pod %d (%s)", i, pod.Name)
		if pod.Name != "" && (!podNamePattern.MatchString(pod.Name) || reservedPodNames[pod.Name]) {
			return fmt.Errorf("%s: name must be a DNS label other than node, cli, sink, ext or node2", label)
		}
		if err := s.validatePod(label, pod, seen); err != nil {
			return err
		}
		name := podNetnsName(s.Prefix, pod, i)
		if seenNetns[name] {
			return fmt.Errorf("%s: netns name %s used twice", label, name)
		}
		seenNetns[name] = true
	}
	if err := validateRanges("sink prefix", s.SinkPrefixes); err != nil {
		return err
	}
	return validateRanges("service CIDR", s.ServiceCIDRs)
}

// validateRanges accepts IPv4 prefixes that keep clear of the link-local
// addresses the topology routes through.
func validateRanges(what string, prefixes []netip.Prefix) error {
	for _, p := range prefixes {
		if !p.IsValid() || !p.Addr().Is4() {
			return fmt.Errorf("%s %s: want an IPv4 prefix", what, p)
		}
		if p.Overlaps(linkLocal) {
			return fmt.Errorf("%s %s overlaps %s, which the topology uses for its gateways", what, p, linkLocal)
		}
	}
	return nil
}

func checkUnicastIPv4(label string, ip netip.Addr) error {
	if !ip.Is4() || !ip.IsGlobalUnicast() {
		return fmt.Errorf("%s: address %s is not a usable IPv4 unicast address", label, ip)
	}
	return nil
}
