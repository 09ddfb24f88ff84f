package model

import (
	"net/netip"
	"slices"
	"sort"
	"strings"
)

// PortEndpoint is one endpoint of one service port, as kube-proxy's
// EndpointsMap holds it: the endpoint with the port's target port.
type PortEndpoint struct {
	Endpoint
	Port int
	// Addr is kube-proxy's Endpoint.String(): "IP:port" ("[IP]:port" for IPv6).
	Addr string
}

// IsLocal reports whether e runs on node, as kube-proxy decides it: the
// endpoint names a node and it is kube-proxy's own (a non-empty name).
func (e Endpoint) IsLocal(node string) bool { return node != "" && e.Node == node }

// PortEndpoints returns every endpoint of port p, ready or not (none for
// an Unresolved port), as
// kube-proxy's EndpointSliceCache keeps them: one per "IP:port" (a later
// duplicate replaces an earlier one unless it is terminating), sorted by that
// string. Its length is kube-proxy's len(endpointsMap[servicePort]), the
// figure its large-cluster mode counts.
func (s *Service) PortEndpoints(p Port) []PortEndpoint {
	if p.Unresolved {
		return nil
	}
	out := make([]PortEndpoint, len(s.Endpoints))
	for i, e := range s.Endpoints {
		out[i] = PortEndpoint{Endpoint: e, Port: p.TargetPort, Addr: EndpointString(e.IP, p.TargetPort)}
	}
	if len(out) > 1 {
		if !slices.IsSortedFunc(out, byAddr) {
			slices.SortStableFunc(out, byAddr)
		}
		out = dedupSorted(out)
	}
	return out
}

func byAddr(a, b PortEndpoint) int { return strings.Compare(a.Addr, b.Addr) }

// dedupSorted folds runs of equal Addr into one, keeping kube-proxy's
// choice: the last one that is not terminating, else the first.
func dedupSorted(eps []PortEndpoint) []PortEndpoint {
	w := 0
	for r := 0; r < len(eps); r++ {
		if w > 0 && eps[w-1].Addr == eps[r].Addr {
			if !eps[r].Terminating {
				eps[w-1] = eps[r]
			}
			continue
		}
		eps[w] = eps[r]
		w++
	}
	return eps[:w]
}

// UsableEndpoints returns the endpoints of eps kube-proxy's
// CategorizeEndpoints gives the Cluster traffic policy on a node with no
// name and no zone (so no topology): the ready endpoints; when none is
// ready, the endpoints that are both serving and terminating. Order is
// kept. The result may share eps' backing array.
func UsableEndpoints(eps []PortEndpoint) []PortEndpoint {
	idx := CategorizeEndpoints(eps, true, false, "", "").Cluster
	if len(idx) == len(eps) {
		return eps
	}
	out := make([]PortEndpoint, len(idx))
	for i, j := range idx {
		out[i] = eps[j]
	}
	return out
}

// UsableEndpointAddrs returns the "IP:port" strings of the endpoints
// kube-proxy routes port p to (UsableEndpoints), in its order.
func (s *Service) UsableEndpointAddrs(p Port) []string {
	if p.Unresolved {
		return nil
	}
	if allReady(s.Endpoints) { // the common case, without the PortEndpoint copies
		out := make([]string, len(s.Endpoints))
		for i, e := range s.Endpoints {
			out[i] = EndpointString(e.IP, p.TargetPort)
		}
		if !sort.StringsAreSorted(out) {
			sort.Strings(out)
		}
		return slices.Compact(out)
	}
	eps := s.PortEndpoints(p)
	return EndpointAddrs(eps, CategorizeEndpoints(eps, true, false, "", "").Cluster)
}

func allReady(eps []Endpoint) bool {
	for i := range eps {
		if !eps[i].Ready {
			return false
		}
	}
	return true
}

// EndpointCount returns how many distinct endpoint addresses s has, ready
// or not: kube-proxy's len(endpointsMap[servicePort]) for each of its ports.
func (s *Service) EndpointCount() int {
	n := len(s.Endpoints)
	if n < 2 {
		return n
	}
	if n <= 16 {
		distinct := 0
		for i, e := range s.Endpoints {
			if !containsIP(s.Endpoints[:i], e.IP) {
				distinct++
			}
		}
		return distinct
	}
	seen := make(map[netip.Addr]struct{}, n)
	for _, e := range s.Endpoints {
		seen[e.IP] = struct{}{}
	}
	return len(seen)
}

func containsIP(eps []Endpoint, ip netip.Addr) bool {
	for _, e := range eps {
		if e.IP == ip {
			return true
		}
	}
	return false
}
