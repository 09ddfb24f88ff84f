package conformance

import (
	"fmt"
	"math/rand/v2"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Case is one generated cluster and the changes applied to it, one sync
// each.
type Case struct {
	Seed     uint64
	Features Features
	// Cluster is the node, Flags kube-proxy's flags; Families the
	// proxiers (IPv4, IPv6 or both) each sync is compared for.
	Cluster  model.Cluster
	Flags    render.Flags
	Families []model.Family
	Services model.Slice
	Changes  []Change
}

// ChangeKind names a change.
type ChangeKind string

// The changes a case applies.
const (
	AddService      ChangeKind = "add-service"
	RemoveService   ChangeKind = "remove-service"
	AddEndpoint     ChangeKind = "add-endpoint"
	RemoveEndpoint  ChangeKind = "remove-endpoint"
	ReplaceEndpoint ChangeKind = "replace-endpoint"
	UpdateService   ChangeKind = "update-service"
)

// Change is one change, addressed by service name so that shrinking the
// cluster leaves it meaningful (a change whose target is gone is a no-op).
type Change struct {
	Kind     ChangeKind
	Service  model.Service // AddService; UpdateService: the new spec (its endpoints are not used)
	Target   string        // "ns/name" of the service changed or removed
	IP       netip.Addr    // endpoint removed or replaced
	Endpoint model.Endpoint
}

func (c Change) String() string {
	switch c.Kind {
	case AddService:
		return fmt.Sprintf("%s %s", c.Kind, describeService(&c.Service))
	case RemoveService:
		return fmt.Sprintf("%s %s", c.Kind, c.Target)
	case UpdateService:
		return fmt.Sprintf("%s %s", c.Kind, describeService(&c.Service))
	case AddEndpoint:
		return fmt.Sprintf("%s %s %s", c.Kind, c.Target, describeEndpoint(c.Endpoint))
	case RemoveEndpoint:
		return fmt.Sprintf("%s %s %s", c.Kind, c.Target, c.IP)
	}
	return fmt.Sprintf("%s %s %s -> %s", c.Kind, c.Target, c.IP, describeEndpoint(c.Endpoint))
}

// apply returns services with c applied; services is not modified.
func (c Change) apply(services model.Slice) model.Slice {
	out := make(model.Slice, 0, len(services)+1)
	for _, s := range services {
		if c.Kind == RemoveService && key(&s) == c.Target {
			continue
		}
		if key(&s) == c.Target && c.Kind == UpdateService {
			eps := s.Endpoints
			s = c.Service
			s.Endpoints = eps
		} else if key(&s) == c.Target {
			s.Endpoints = c.endpoints(s.Endpoints)
		}
		out = append(out, s)
	}
	if c.Kind == AddService {
		out = append(out, c.Service)
	}
	return out
}

func (c Change) endpoints(eps []model.Endpoint) []model.Endpoint {
	out := make([]model.Endpoint, 0, len(eps)+1)
	for _, e := range eps {
		switch {
		case e.IP != c.IP:
			out = append(out, e)
		case c.Kind == ReplaceEndpoint:
			out = append(out, c.Endpoint)
		}
	}
	if c.Kind == AddEndpoint {
		out = append(out, c.Endpoint)
	}
	return out
}

// States returns the cluster before the first change and after each one.
func (tc *Case) States() []model.Slice {
	states := []model.Slice{tc.Services}
	for _, c := range tc.Changes {
		states = append(states, c.apply(states[len(states)-1]))
	}
	return states
}

func key(s *model.Service) string { return s.Namespace + "/" + s.Name }

// gen builds random clusters from one seed.
type gen struct {
	r         *rand.Rand
	nextIP    uint32 // endpoint addresses: 10.180.0.0/16 upwards
	nextVIP   uint32 // ClusterIPs: 172.30.0.0/16
	nextNode  int    // node ports from 30000
	nextName  int
	nodeNames []string
	deco      *decorator
}

// Generate builds case seed: usually 1 to 6 services, in one case out of
// eight a large cluster whose endpoint count (every endpoint times ports,
// as kube-proxy counts) lies around the 1,000 threshold; then 0 to 4
// changes. The features f are mixed in from their own random stream: with
// none, a case is the same as before features existed.
func Generate(seed uint64, f Features) *Case {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6b7072)), nodeNames: []string{"node-1", "node-2", "node-3"}, deco: newDecorator(seed, f)}
	c, flags := g.deco.cluster()
	tc := &Case{Seed: seed, Features: f, Cluster: c, Flags: flags, Families: g.deco.caseFamilies()}
	if g.r.IntN(8) == 0 {
		target := 900 + g.r.IntN(200)
		total := 0
		for total < target {
			s := g.service(1+g.r.IntN(2), 10+g.r.IntN(11))
			total += len(s.Endpoints) * len(s.Ports)
			tc.Services = append(tc.Services, s)
		}
	} else {
		for range 1 + g.r.IntN(6) {
			tc.Services = append(tc.Services, g.service(1+g.r.IntN(3), g.r.IntN(21)))
		}
	}
	states := tc.Services
	for range g.r.IntN(5) {
		c := g.change(states)
		tc.Changes = append(tc.Changes, c)
		states = c.apply(states)
		if u, ok := g.deco.update(g, states); ok {
			tc.Changes = append(tc.Changes, u)
			states = u.apply(states)
		}
	}
	return tc
}

var protocols = []model.Protocol{model.TCP, model.TCP, model.UDP, model.SCTP}

func (g *gen) service(ports, endpoints int) model.Service {
	g.nextName++
	g.nextVIP++
	s := model.Service{
		Namespace: fmt.Sprintf("ns%d", g.r.IntN(3)),
		Name:      fmt.Sprintf("svc%d", g.nextName),
		Type:      model.ClusterIP,
		ClusterIP: ipv4(172<<24 | 30<<16 | g.nextVIP),
	}
	if g.r.IntN(10) < 3 {
		s.Type = model.NodePort
	}
	if g.r.IntN(4) == 0 {
		// The API server always sets the timeout (default 10800).
		s.Affinity = model.Affinity{ClientIP: true, Timeout: model.DefaultAffinityTimeout}
		if g.r.IntN(2) == 0 {
			s.Affinity.Timeout = 1 + g.r.IntN(86400)
		}
	}
	used := map[string]bool{}
	for len(s.Ports) < ports {
		p := model.Port{Protocol: protocols[g.r.IntN(len(protocols))], Port: 1 + g.r.IntN(9000)}
		if used[fmt.Sprint(p.Protocol, p.Port)] {
			continue
		}
		used[fmt.Sprint(p.Protocol, p.Port)] = true
		p.TargetPort = p.Port
		if g.r.IntN(2) == 0 {
			p.TargetPort = 1 + g.r.IntN(60000)
		}
		if ports > 1 || g.r.IntN(2) == 0 {
			p.Name = fmt.Sprintf("p%d", p.Port)
		}
		// A port no EndpointSlice port resolves (a named targetPort the
		// pods do not have): kube-proxy has no endpoints for it. Chosen
		// without drawing, so the seeded clusters stay as they were.
		p.Unresolved = p.Port%11 == 0
		if s.Type == model.NodePort {
			p.NodePort = 30000 + g.nextNode
			g.nextNode++
		}
		s.Ports = append(s.Ports, p)
	}
	for range endpoints {
		s.Endpoints = append(s.Endpoints, g.endpoint())
	}
	g.deco.service(&s)
	return s
}

// endpoint returns a fresh endpoint: ready (6 in 10), not ready (3 in 20),
// serving and terminating (3 in 20), terminating and not serving (1 in
// 10); on this node (node-1) 4 times in 10.
func (g *gen) endpoint() model.Endpoint {
	g.nextIP++
	e := model.Endpoint{IP: ipv4(10<<24 | 180<<16 | g.nextIP), Node: g.nodeNames[0]}
	if g.r.IntN(10) >= 4 {
		e.Node = g.nodeNames[1+g.r.IntN(2)]
	}
	switch x := g.r.IntN(20); {
	case x < 12:
		e.Ready, e.Serving = true, true
	case x < 15:
	case x < 18:
		e.Serving, e.Terminating = true, true
	default:
		e.Terminating = true
	}
	return e
}

func (g *gen) change(services model.Slice) Change {
	if len(services) == 0 {
		return Change{Kind: AddService, Service: g.service(1+g.r.IntN(3), g.r.IntN(6))}
	}
	s := services[g.r.IntN(len(services))]
	c := Change{Target: key(&s)}
	switch x := g.r.IntN(10); {
	case x < 2:
		return Change{Kind: AddService, Service: g.service(1+g.r.IntN(3), g.r.IntN(6))}
	case x < 3:
		c.Kind = RemoveService
	case x < 6 || len(s.Endpoints) == 0:
		c.Kind, c.Endpoint = AddEndpoint, g.deco.endpoint(&s, g.endpoint())
	case x < 8:
		c.Kind, c.IP = RemoveEndpoint, s.Endpoints[g.r.IntN(len(s.Endpoints))].IP
	default:
		old := s.Endpoints[g.r.IntN(len(s.Endpoints))]
		c.Kind, c.IP, c.Endpoint = ReplaceEndpoint, old.IP, g.deco.endpoint(&s, g.endpoint())
		if g.r.IntN(2) == 0 {
			c.Endpoint.IP = old.IP // same address, new node and conditions
		}
	}
	return c
}

func ipv4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func describeService(s *model.Service) string {
	out := fmt.Sprintf("%s %s %s", key(s), s.Type, s.ClusterIP)
	if s.SecondaryClusterIP.IsValid() {
		out += "," + s.SecondaryClusterIP.String()
	}
	if len(s.ExternalIPs) > 0 {
		out += fmt.Sprintf(" externalIPs=%v", s.ExternalIPs)
	}
	if len(s.LoadBalancerIPs) > 0 {
		out += fmt.Sprintf(" ingress=%v", s.LoadBalancerIPs)
	}
	if len(s.LoadBalancerSourceRanges) > 0 {
		out += fmt.Sprintf(" sourceRanges=%v", s.LoadBalancerSourceRanges)
	}
	if s.ExternalPolicyLocal {
		out += fmt.Sprintf(" externalTrafficPolicy=Local healthCheckNodePort=%d", s.HealthCheckNodePort)
	}
	if s.InternalPolicyLocal {
		out += " internalTrafficPolicy=Local"
	}
	if s.TrafficDistribution != "" {
		out += " trafficDistribution=" + s.TrafficDistribution
	}
	if s.Affinity.ClientIP {
		out += fmt.Sprintf(" affinity=ClientIP/%ds", s.Affinity.Timeout)
	}
	for _, p := range s.Ports {
		out += fmt.Sprintf(" port[%s %s %d->%d", p.Name, p.Protocol, p.Port, p.TargetPort)
		if p.Unresolved {
			out += " unresolved"
		}
		if p.NodePort != 0 {
			out += fmt.Sprintf(" node %d", p.NodePort)
		}
		out += "]"
	}
	for _, e := range s.Endpoints {
		out += "\n    " + describeEndpoint(e)
	}
	return out
}

func describeEndpoint(e model.Endpoint) string {
	out := fmt.Sprintf("%s on %s ready=%v serving=%v terminating=%v", e.IP, e.Node, e.Ready, e.Serving, e.Terminating)
	if e.Zone != "" || e.ZoneHints != nil || e.NodeHints != nil {
		out += fmt.Sprintf(" zone=%s hints=%v nodeHints=%v", e.Zone, e.ZoneHints, e.NodeHints)
	}
	return out
}
