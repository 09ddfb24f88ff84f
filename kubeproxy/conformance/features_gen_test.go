package conformance

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"sort"
	"strings"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Features is a set of Service features the generator mixes into the
// base clusters (ClusterIP and NodePort services, affinity, protocols,
// endpoint conditions, large clusters). Each feature draws from its own
// random stream, so the base part of a case is the same whatever features
// are on.
type Features uint32

// The features beyond the base clusters.
const (
	FeatLoadBalancer  Features = 1 << iota // type LoadBalancer, ingress IPs
	FeatExternalIPs                        // spec.externalIPs
	FeatSourceRanges                       // loadBalancerSourceRanges (some holding the node IP)
	FeatExternalLocal                      // externalTrafficPolicy: Local, healthCheckNodePort
	FeatInternalLocal                      // internalTrafficPolicy: Local
	FeatTopology                           // zones, zone and node hints, the node's zone, trafficDistribution
	FeatSkipped                            // headless and ExternalName services
	FeatIPv6                               // IPv6-only clusters
	FeatDualStack                          // dual-stack clusters: single-stack services of each family and dual-stack ones
	FeatOptions                            // --masquerade-all, --nodeport-addresses, localhost NodePorts off
	FeatUpdateService                      // changes that update a service's spec
	featEnd
)

// AllFeatures is every feature.
const AllFeatures = featEnd - 1

var featureNames = map[Features]string{
	FeatLoadBalancer: "loadbalancer", FeatExternalIPs: "externalips", FeatSourceRanges: "sourceranges",
	FeatExternalLocal: "externallocal", FeatInternalLocal: "internallocal", FeatTopology: "topology",
	FeatSkipped: "skipped", FeatIPv6: "ipv6", FeatDualStack: "dualstack", FeatOptions: "options",
	FeatUpdateService: "updateservice",
}

// String lists the features by name ("base" when none).
func (f Features) String() string {
	var out []string
	for bit, name := range featureNames {
		if f&bit != 0 {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return "base"
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// modeFeatures are the features each mode's suite mixes in: those the
// native renderer of that mode renders as kube-proxy does.
var modeFeatures = map[string]Features{
	kube.ModeIPTables: AllFeatures,
	kube.ModeNFTables: AllFeatures,
	kube.ModeIPVS:     AllFeatures,
}

// suiteFeatures returns mode's features, or those named in
// SVCLAB_CONFORMANCE_FEATURES ("all", or a comma list of names).
func suiteFeatures(mode string) (Features, error) {
	v := os.Getenv("SVCLAB_CONFORMANCE_FEATURES")
	if v == "" {
		return modeFeatures[mode], nil
	}
	if v == "all" {
		return AllFeatures, nil
	}
	var f Features
	for _, name := range strings.Split(v, ",") {
		found := false
		for bit, n := range featureNames {
			if n == strings.TrimSpace(name) {
				f, found = f|bit, true
			}
		}
		if !found && strings.TrimSpace(name) != "base" {
			return 0, fmt.Errorf("SVCLAB_CONFORMANCE_FEATURES: unknown feature %q (known: %s)", name, AllFeatures)
		}
	}
	return f, nil
}

// The addresses the features use.
var (
	nodeIPv6     = netip.MustParseAddr("fd00:1::2")
	clusterCIDR6 = netip.MustParsePrefix("fd00:180::/48")
	serviceCIDR6 = netip.MustParsePrefix("fd00:30::/108")
	zones        = map[string]string{"node-1": "zone-a", "node-2": "zone-b", "node-3": "zone-c"}
)

// decorator adds the enabled features to a base case, from its own
// random stream.
type decorator struct {
	r        *rand.Rand
	f        Features
	layout   familyLayout
	nextExt  uint32
	nextHC   int
	hinted   map[string]bool // services whose endpoints all carry hints
	families map[string]serviceFamilies
}

// familyLayout is a case's families.
type familyLayout int

const (
	layoutIPv4 familyLayout = iota
	layoutIPv6
	layoutDual
)

// serviceFamilies is one service's families: its primary family and
// whether it is dual-stack.
type serviceFamilies struct {
	primary model.Family
	dual    bool
}

func newDecorator(seed uint64, f Features) *decorator {
	d := &decorator{r: rand.New(rand.NewPCG(seed, 0x66656174)), f: f, hinted: map[string]bool{}, families: map[string]serviceFamilies{}}
	switch x := d.r.IntN(3); {
	case f&FeatDualStack != 0 && (x == 0 || f&FeatIPv6 == 0 && x == 1):
		d.layout = layoutDual
	case f&FeatIPv6 != 0 && x == 1:
		d.layout = layoutIPv6
	}
	return d
}

// cluster returns the case's cluster and kube-proxy flags: the default
// cluster with the node's addresses of both families, with FeatTopology
// the node's zone, and with FeatOptions some flags.
func (d *decorator) cluster() (model.Cluster, render.Flags) {
	c := model.DefaultCluster()
	c.NodeIP, c.NodeIPv6 = nodeIP, nodeIPv6
	c.ClusterCIDRv6, c.ServiceCIDRv6 = clusterCIDR6, serviceCIDR6
	if d.f&FeatTopology != 0 && d.r.IntN(3) > 0 {
		c.NodeZone = zones[c.NodeName]
	}
	var p render.Flags
	if d.f&FeatOptions != 0 {
		p.MasqueradeAll = d.r.IntN(6) == 0
		p.NoLocalhostNodePorts = d.r.IntN(6) == 0
		switch d.r.IntN(6) {
		case 0:
			p.NodePortAddresses = []netip.Prefix{netip.MustParsePrefix("192.168.0.0/24"), netip.MustParsePrefix("fd00:1::/64")}
		case 1:
			p.NodePortPrimary = true
		case 2:
			p.NodePortAddresses = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("192.168.0.2/32")}
		case 3:
			p.NodePortAddresses = []netip.Prefix{netip.MustParsePrefix("10.250.0.0/16")}
		}
	}
	return c, p
}

// families returns the families the case's proxiers run for.
func (d *decorator) caseFamilies() []model.Family {
	switch d.layout {
	case layoutIPv6:
		return []model.Family{model.IPv6}
	case layoutDual:
		return []model.Family{model.IPv4, model.IPv6}
	}
	return []model.Family{model.IPv4}
}

// service adds the features to a freshly generated base service.
func (d *decorator) service(s *model.Service) {
	d.serviceFamilies(s)
	d.serviceType(s)
	if d.f&FeatExternalIPs != 0 && d.r.IntN(6) == 0 {
		for range 1 + d.r.IntN(2) {
			s.ExternalIPs = append(s.ExternalIPs, d.external(s, 192<<24|0<<16|2<<8, "2001:db8::"))
		}
	}
	external := s.Type == model.NodePort || s.Type == model.LoadBalancer || len(s.ExternalIPs) > 0
	if d.f&FeatExternalLocal != 0 && external && d.r.IntN(3) == 0 {
		s.ExternalPolicyLocal = true
		if s.Type == model.LoadBalancer {
			d.nextHC++
			s.HealthCheckNodePort = 32000 + d.nextHC
		}
	}
	if d.f&FeatInternalLocal != 0 && d.r.IntN(6) == 0 {
		s.InternalPolicyLocal = true
	}
	d.topology(s)
	for i := range s.Endpoints {
		s.Endpoints[i] = d.endpoint(s, s.Endpoints[i])
	}
	if d.hinted[key(s)] && len(s.Endpoints) > 1 && d.r.IntN(4) == 0 {
		s.Endpoints[0].ZoneHints, s.Endpoints[0].NodeHints = nil, nil
	}
	d.skip(s)
}

// serviceType turns some services into LoadBalancers: ingress IPs of the
// service's families (none: a pending load balancer), node ports kept or
// not allocated, and source ranges.
func (d *decorator) serviceType(s *model.Service) {
	if d.f&FeatLoadBalancer == 0 || d.r.IntN(5) != 0 {
		return
	}
	nodePorts := s.Type == model.NodePort || d.r.IntN(5) == 0
	s.Type = model.LoadBalancer
	if !nodePorts {
		for i := range s.Ports {
			s.Ports[i].NodePort = 0
		}
	}
	for range d.r.IntN(3) {
		s.LoadBalancerIPs = append(s.LoadBalancerIPs, d.external(s, 203<<24|0<<16|113<<8, "2001:db8:1::"))
	}
	if d.f&FeatSourceRanges != 0 && d.r.IntN(2) == 0 {
		ranges := []string{"198.51.100.0/24", "192.168.0.0/16", "203.0.113.128/25", "2001:db8:2::/48", "fd00:1::/64"}
		for range 1 + d.r.IntN(2) {
			s.LoadBalancerSourceRanges = append(s.LoadBalancerSourceRanges, netip.MustParsePrefix(ranges[d.r.IntN(len(ranges))]))
		}
	}
}

// external returns a fresh external address of one of s's families.
func (d *decorator) external(s *model.Service, v4base uint32, v6base string) netip.Addr {
	d.nextExt++
	if d.pickFamily(s) == model.IPv6 {
		return netip.MustParseAddr(fmt.Sprintf("%s%x", v6base, d.nextExt))
	}
	return ipv4(v4base | d.nextExt%250 + 1)
}

// serviceFamilies decides s's families from the layout and moves its
// ClusterIP into them.
func (d *decorator) serviceFamilies(s *model.Service) {
	sf := serviceFamilies{primary: model.IPv4}
	switch d.layout {
	case layoutIPv6:
		sf.primary = model.IPv6
	case layoutDual:
		x := d.r.IntN(4)
		sf.primary, sf.dual = model.Family(x%2), x >= 2
	}
	d.families[key(s)] = sf
	v4, v6 := s.ClusterIP, to6(s.ClusterIP, "fd00:30::")
	switch {
	case sf.primary == model.IPv6 && sf.dual:
		s.ClusterIP, s.SecondaryClusterIP = v6, v4
	case sf.primary == model.IPv6:
		s.ClusterIP = v6
	case sf.dual:
		s.SecondaryClusterIP = v6
	}
}

// pickFamily returns one of s's families at random.
func (d *decorator) pickFamily(s *model.Service) model.Family {
	sf := d.families[key(s)]
	if sf.dual && d.r.IntN(2) == 0 {
		return 1 - sf.primary
	}
	return sf.primary
}

// endpoint moves e into one of s's families and, with FeatTopology, gives
// it its node's zone and, for hinted services, hints.
func (d *decorator) endpoint(s *model.Service, e model.Endpoint) model.Endpoint {
	if d.pickFamily(s) == model.IPv6 {
		e.IP = to6(e.IP, "fd00:180::")
	}
	if d.f&FeatTopology != 0 {
		e.Zone = zones[e.Node]
		if d.hinted[key(s)] {
			e.ZoneHints = []string{e.Zone}
			if d.r.IntN(4) == 0 {
				e.NodeHints = []string{e.Node}
			}
		}
	}
	return e
}

// topology gives some services a trafficDistribution and marks half of
// them hinted: their endpoints carry hints (all of them, or in one case in
// four all but one, when kube-proxy ignores the hints).
func (d *decorator) topology(s *model.Service) {
	if d.f&FeatTopology == 0 {
		return
	}
	if d.r.IntN(3) == 0 {
		s.TrafficDistribution = "PreferClose"
	}
	d.hinted[key(s)] = d.r.IntN(2) == 0
}

// skip turns a few services headless or ExternalName.
func (d *decorator) skip(s *model.Service) {
	if d.f&FeatSkipped == 0 {
		return
	}
	switch d.r.IntN(12) {
	case 0:
		s.ClusterIP, s.SecondaryClusterIP = netip.Addr{}, netip.Addr{}
		s.Type, s.ExternalIPs, s.LoadBalancerIPs = model.ClusterIP, nil, nil
		for i := range s.Ports {
			s.Ports[i].NodePort = 0
		}
		s.ExternalPolicyLocal, s.HealthCheckNodePort = false, 0
	case 1:
		s.Type = model.ExternalName
	}
}

// update returns a change that replaces the spec of one of services with
// a freshly decorated one (same name, ClusterIP, ports and endpoints).
func (d *decorator) update(g *gen, services model.Slice) (Change, bool) {
	if d.f&FeatUpdateService == 0 || len(services) == 0 || d.r.IntN(3) != 0 {
		return Change{}, false
	}
	s := services[d.r.IntN(len(services))]
	u := s
	u.Ports = append([]model.Port(nil), s.Ports...)
	u.Endpoints = append([]model.Endpoint(nil), s.Endpoints...)
	u.ExternalIPs, u.LoadBalancerIPs, u.LoadBalancerSourceRanges = nil, nil, nil
	u.ExternalPolicyLocal, u.InternalPolicyLocal, u.HealthCheckNodePort = false, false, 0
	if u.Type == model.LoadBalancer && d.r.IntN(2) == 0 {
		u.Type = model.NodePort
		for i := range u.Ports {
			if u.Ports[i].NodePort == 0 {
				g.nextNode++
				u.Ports[i].NodePort = 30000 + g.nextNode
			}
		}
	}
	sf := d.families[key(&s)]
	d.serviceType(&u)
	if d.f&FeatExternalIPs != 0 && d.r.IntN(3) == 0 {
		u.ExternalIPs = append(u.ExternalIPs, d.external(&u, 192<<24|0<<16|2<<8, "2001:db8::"))
	}
	if d.f&FeatExternalLocal != 0 && d.r.IntN(2) == 0 && (u.Type != model.ClusterIP || len(u.ExternalIPs) > 0) {
		u.ExternalPolicyLocal = true
		if u.Type == model.LoadBalancer {
			d.nextHC++
			u.HealthCheckNodePort = 32000 + d.nextHC
		}
	}
	u.InternalPolicyLocal = d.f&FeatInternalLocal != 0 && d.r.IntN(3) == 0
	d.families[key(&u)] = sf
	return Change{Kind: UpdateService, Target: key(&s), Service: u}, true
}

// to6 maps an IPv4 address into an IPv6 prefix (its 32 bits last), so
// that distinct IPv4 addresses stay distinct; IPv6 addresses are kept.
func to6(a netip.Addr, prefix string) netip.Addr {
	if !a.Is4() {
		return a
	}
	b := a.As4()
	return netip.MustParseAddr(fmt.Sprintf("%s%x:%x", prefix, uint16(b[0])<<8|uint16(b[1]), uint16(b[2])<<8|uint16(b[3])))
}
