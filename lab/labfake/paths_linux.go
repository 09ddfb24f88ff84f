package labfake

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// positions indexes every address a programmed model answers on (each
// family's ClusterIPs, the node's IPs at each NodePort, externalIPs and
// load-balancer IPs) by its service's position: the rules an iptables
// lookup walks before it reaches the service (see costMicros).
func (l *Lab) positions(m *model.Model) map[netip.AddrPort]int {
	index := map[netip.AddrPort]int{}
	for _, f := range model.Families(m.Services) {
		node := l.Spec.NodeIP
		if f == model.IPv6 {
			node = l.Spec.NodeIPv6
		}
		for i := 0; i < m.Services.Len(); i++ {
			s := model.ProjectService(m.Services.At(i), f)
			if s.Skipped() {
				continue
			}
			for _, p := range s.Ports {
				add := func(ip netip.Addr, port int) {
					if ip.IsValid() && port != 0 {
						index[netip.AddrPortFrom(ip, uint16(port))] = i
					}
				}
				add(s.ClusterIP, p.Port)
				if s.Type == model.NodePort || s.Type == model.LoadBalancer {
					add(node, p.NodePort)
				}
				for _, ip := range append(append([]netip.Addr(nil), s.ExternalIPs...), s.LoadBalancerIPs...) {
					add(ip, p.Port)
				}
			}
		}
	}
	return index
}

// query is a connection from src to target as the lab's clients make it:
// src zero is the client pod (of target's family), or the node itself
// when the lab put the client there; any other source is the external
// client's, entering through the node's uplink like a pod's packets.
func (l *Lab) query(target netip.AddrPort, src netip.Addr) route.Query {
	q := route.Query{Dst: target, Src: src}
	switch {
	case src.IsValid():
	case l.Spec.ClientOnNode:
		q.From = route.FromNode
	case target.Addr().Is6():
		q.Src = l.Spec.ClientIPv6
	default:
		q.Src = topo.DefaultClientIP
	}
	return q
}

// route is where the loaded rules send a connection from src to target,
// traced once per target and source.
func (d *Dataplane) route(q route.Query) (route.Answer, error) {
	d.routeMu.Lock()
	defer d.routeMu.Unlock()
	if a, ok := d.routes[q]; ok {
		return a, nil
	}
	if d.oracle == nil {
		o, err := d.newOracle()
		if err != nil {
			return route.Answer{}, err
		}
		d.oracle = o
	}
	a, err := d.oracle.Route(q)
	if err != nil {
		return a, fmt.Errorf("fake %s: %w", d.name, err)
	}
	d.routes[q] = a
	return a, nil
}

// newOracle compiles the loaded rules of each family for tracing; a
// dataplane without rules (eBPF) is held to the rules of the mode that
// answers for it (route.ModeOf), rendered from the programmed model.
func (d *Dataplane) newOracle() (*route.Oracle, error) {
	var rules []route.FamilyRules
	for f, r := range d.rules {
		if r == nil {
			continue
		}
		node := d.lab.Spec.NodeIP
		if model.Family(f) == model.IPv6 {
			node = d.lab.Spec.NodeIPv6
		}
		rules = append(rules, route.FamilyRules{Family: model.Family(f), Rules: r, Node: node})
	}
	if len(rules) > 0 {
		return route.FromRules(rules...)
	}
	mode, err := route.ModeOf(d.name)
	if err != nil {
		return nil, err
	}
	m := *d.model
	m.Cluster.NodeIP, m.Cluster.NodeIPv6 = d.lab.Spec.NodeIP, d.lab.Spec.NodeIPv6
	return route.New(&m, route.Config{Mode: mode, Config: d.cfg})
}

// pickEndpoint chooses among the endpoints by their probabilities, for u
// uniform in [0, 1).
func pickEndpoint(eps []route.Endpoint, u float64) route.Endpoint {
	var total float64
	for _, e := range eps {
		total += e.Probability
	}
	u *= total
	for _, e := range eps {
		if u < e.Probability {
			return e
		}
		u -= e.Probability
	}
	return eps[len(eps)-1]
}

// ServerSources is what the fake pod servers counted per source address.
func (l *Lab) ServerSources() map[string]map[netip.Addr]uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]map[netip.Addr]uint64{}
	for pod, m := range l.sources {
		c := map[netip.Addr]uint64{}
		for ip, n := range m {
			c[ip] = n
		}
		out[pod] = c
	}
	return out
}
