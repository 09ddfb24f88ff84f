package migrate

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// Target is what a path connects to.
type Target string

// The targets.
const (
	ToClusterIP      Target = "ClusterIP"
	ToWrongPort      Target = "ClusterIP, a port no Service uses"
	ToNodePort       Target = "NodePort on the node's primary address"
	ToNodePortOther  Target = "NodePort on another node address"
	ToNodePortLocal  Target = "NodePort on localhost"
	ToLoadBalancerIP Target = "LoadBalancer IP"
	ToExternalIP     Target = "externalIP"
)

// Client is where a path's connection comes from.
type Client string

// The clients.
const (
	FromPod     Client = "a pod on the node"
	FromNode    Client = "the node itself"
	FromOutside Client = "an external client"
	FromInside  Client = "an external client inside the source ranges"
	FromDenied  Client = "an external client outside the source ranges"
	FromHairpin Client = "an endpoint of the Service itself (hairpin)"
)

// Path is one connection to route on both sides.
type Path struct {
	Service string // "ns/name"
	Port    string // the port's name, or its number
	Family  model.Family
	Target  Target
	Client  Client
	Query   route.Query
	// Facts are the Service's settings the causes are told apart by.
	Facts Facts
}

// Facts are a Service's settings as the model holds them (not what any
// mode makes of them).
type Facts struct {
	ExternalLocal, InternalLocal bool
	Affinity                     bool
	// Endpoints and LocalEndpoints count the Service's ready endpoints,
	// on any node and on the rendered one.
	Endpoints, LocalEndpoints int
}

// Kind is the path's class of traffic: target and client.
func (p Path) Kind() string { return fmt.Sprintf("%s from %s", p.Target, p.Client) }

// String names the path with its addresses.
func (p Path) String() string {
	src := p.Query.Src.String()
	if !p.Query.Src.IsValid() {
		src = "node"
	}
	return fmt.Sprintf("%s %s %s→%s", p.Service, p.Port, src, p.Query.Dst)
}

// Node is the node the rules are written for, as the paths see it: its
// primary addresses (the model's), and other local addresses NodePorts are
// tried on.
type Node struct {
	Other []netip.Addr
}

// clients are the client addresses of one family.
type clients struct {
	pod, outside netip.Addr
	loopback     netip.Addr
}

// clientsOf picks a pod address of the cluster's pod CIDR that is no
// endpoint, and an external address outside every range the model uses.
func clientsOf(c model.Cluster, f model.Family) clients {
	if f == model.IPv6 {
		return clients{pod: podAddr(c.ClusterCIDRv6, "fd00:10:244:ffff::2"), outside: netip.MustParseAddr("3fff::10"), loopback: netip.IPv6Loopback()}
	}
	return clients{pod: podAddr(c.ClusterCIDR, "10.244.255.1"), outside: netip.MustParseAddr("198.51.100.10"), loopback: netip.MustParseAddr("127.0.0.1")}
}

// podAddr is an address near the end of cidr (away from the endpoints
// generators and clusters allocate from the start), or fallback.
func podAddr(cidr netip.Prefix, fallback string) netip.Addr {
	if !cidr.IsValid() {
		return netip.MustParseAddr(fallback)
	}
	b := cidr.Masked().Addr().AsSlice()
	for i := cidr.Bits() / 8; i < len(b); i++ {
		b[i] = 0xff
	}
	b[len(b)-1] = 0xfe
	a, _ := netip.AddrFromSlice(b)
	if !cidr.Contains(a) {
		return netip.MustParseAddr(fallback)
	}
	return a
}

// Paths lists every path of m's services: for each service, family and
// port, to each of its addresses from each client that can reach it.
func Paths(m *model.Model, node Node) []Path {
	used := usedPorts(m)
	var out []Path
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		for _, f := range []model.Family{model.IPv4, model.IPv6} {
			ps := model.ProjectService(s, f)
			if ps.Skipped() {
				continue
			}
			out = append(out, servicePaths(m.Cluster.ForFamily(f), &ps, f, node, used)...)
		}
	}
	return out
}

func servicePaths(c model.Cluster, s *model.Service, f model.Family, node Node, used map[netip.AddrPort]bool) []Path {
	cl := clientsOf(c, f)
	name := s.Namespace + "/" + s.Name
	facts := factsOf(s, c.NodeName)
	var out []Path
	add := func(port string, t Target, from Client, dst netip.AddrPort, proto model.Protocol, src netip.Addr) {
		q := route.Query{Dst: dst, Proto: proto, Src: src}
		if from == FromNode {
			q.From = route.FromNode
		}
		out = append(out, Path{Service: name, Port: port, Family: f, Target: t, Client: from, Query: q, Facts: facts})
	}
	for _, p := range s.Ports {
		port := p.Name
		if port == "" {
			port = fmt.Sprint(p.Port)
		}
		cip := netip.AddrPortFrom(s.ClusterIP, uint16(p.Port))
		add(port, ToClusterIP, FromPod, cip, p.Protocol, cl.pod)
		add(port, ToClusterIP, FromNode, cip, p.Protocol, netip.Addr{})
		add(port, ToClusterIP, FromOutside, cip, p.Protocol, cl.outside)
		if hp, ok := localEndpoint(s, c.NodeName); ok {
			add(port, ToClusterIP, FromHairpin, cip, p.Protocol, hp)
		}
		if p.NodePort != 0 {
			np := func(a netip.Addr) netip.AddrPort { return netip.AddrPortFrom(a, uint16(p.NodePort)) }
			if c.NodeIP.IsValid() {
				add(port, ToNodePort, FromPod, np(c.NodeIP), p.Protocol, cl.pod)
				add(port, ToNodePort, FromNode, np(c.NodeIP), p.Protocol, netip.Addr{})
				add(port, ToNodePort, FromOutside, np(c.NodeIP), p.Protocol, cl.outside)
			}
			for _, a := range node.Other {
				if model.FamilyOf(a) == f {
					add(port, ToNodePortOther, FromOutside, np(a), p.Protocol, cl.outside)
				}
			}
			add(port, ToNodePortLocal, FromNode, np(cl.loopback), p.Protocol, cl.loopback)
		}
		for _, a := range s.ExternalIPs {
			dst := netip.AddrPortFrom(a, uint16(p.Port))
			add(port, ToExternalIP, FromPod, dst, p.Protocol, cl.pod)
			add(port, ToExternalIP, FromNode, dst, p.Protocol, netip.Addr{})
			add(port, ToExternalIP, FromOutside, dst, p.Protocol, cl.outside)
		}
		for _, a := range s.LoadBalancerIPs {
			dst := netip.AddrPortFrom(a, uint16(p.Port))
			add(port, ToLoadBalancerIP, FromPod, dst, p.Protocol, cl.pod)
			add(port, ToLoadBalancerIP, FromNode, dst, p.Protocol, netip.Addr{})
			if len(s.LoadBalancerSourceRanges) == 0 {
				add(port, ToLoadBalancerIP, FromOutside, dst, p.Protocol, cl.outside)
				continue
			}
			add(port, ToLoadBalancerIP, FromInside, dst, p.Protocol, insideAddr(s.LoadBalancerSourceRanges[0]))
			if !slices.ContainsFunc(s.LoadBalancerSourceRanges, func(r netip.Prefix) bool { return r.Contains(cl.outside) }) {
				add(port, ToLoadBalancerIP, FromDenied, dst, p.Protocol, cl.outside)
			}
		}
	}
	if wp, ok := wrongPort(s, used); ok {
		add(fmt.Sprint(wp.Port()), ToWrongPort, FromPod, wp, s.Ports[0].Protocol, cl.pod)
	}
	return out
}

func factsOf(s *model.Service, node string) Facts {
	f := Facts{ExternalLocal: s.ExternalPolicyLocal, InternalLocal: s.InternalPolicyLocal, Affinity: s.Affinity.ClientIP}
	for _, e := range s.Endpoints {
		if e.Ready {
			f.Endpoints++
			if e.IsLocal(node) {
				f.LocalEndpoints++
			}
		}
	}
	return f
}

// localEndpoint is a ready endpoint of s on the node.
func localEndpoint(s *model.Service, node string) (netip.Addr, bool) {
	for _, e := range s.Endpoints {
		if e.Ready && e.IsLocal(node) {
			return e.IP, true
		}
	}
	return netip.Addr{}, false
}

// insideAddr is an address inside r: its first host address.
func insideAddr(r netip.Prefix) netip.Addr {
	a := r.Masked().Addr()
	if r.Bits() < a.BitLen() {
		a = a.Next()
	}
	return a
}

// usedPorts lists every ClusterIP:port a service uses, in both families.
func usedPorts(m *model.Model) map[netip.AddrPort]bool {
	used := map[netip.AddrPort]bool{}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		for _, ip := range []netip.Addr{s.ClusterIP, s.SecondaryClusterIP} {
			for _, p := range s.Ports {
				if ip.IsValid() {
					used[netip.AddrPortFrom(ip, uint16(p.Port))] = true
				}
			}
		}
	}
	return used
}

// wrongPort is s's ClusterIP at a port no service uses there (the first
// free one after its highest port).
func wrongPort(s *model.Service, used map[netip.AddrPort]bool) (netip.AddrPort, bool) {
	if len(s.Ports) == 0 {
		return netip.AddrPort{}, false
	}
	for p := s.Ports[0].Port + 1; p < 65536; p++ {
		if ap := netip.AddrPortFrom(s.ClusterIP, uint16(p)); !used[ap] {
			return ap, true
		}
	}
	return netip.AddrPort{}, false
}

// MarshalJSON writes the path with its addresses as strings.
func (p Path) MarshalJSON() ([]byte, error) {
	src := "node"
	if p.Query.Src.IsValid() {
		src = p.Query.Src.String()
	}
	return json.Marshal(struct {
		Service string `json:"service"`
		Port    string `json:"port"`
		Family  string `json:"family"`
		Target  Target `json:"target"`
		Client  Client `json:"client"`
		Src     string `json:"src"`
		Dst     string `json:"dst"`
		Proto   string `json:"proto,omitempty"`
	}{p.Service, p.Port, p.Family.String(), p.Target, p.Client, src, p.Query.Dst.String(), string(p.Query.Proto)})
}
