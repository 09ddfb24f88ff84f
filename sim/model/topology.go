package model

import "slices"

// Categories is kube-proxy's CategorizeEndpoints result for one service
// port, as ascending indexes into the port's endpoints (PortEndpoints):
// the endpoints of the Cluster and of the Local traffic policy, and
// Reachable, every endpoint reachable from this node (their union).
// Cluster is nil when the port never uses the Cluster policy, Local when
// it never uses the Local one. HasAny reports whether the port has a
// usable endpoint anywhere in the cluster (even with Reachable empty).
// The slices may share a read-only backing array: do not modify them.
type Categories struct {
	Cluster, Local, Reachable []int
	HasAny                    bool
}

// The topology modes of kube-proxy's topologyModeFromHints.
const (
	topologyNone = iota
	topologySameNode
	topologySameZone
)

// CategorizeEndpoints is kube-proxy's CategorizeEndpoints
// (pkg/proxy/topology.go; v1.35.4 and v1.37.2 agree, with the
// PreferSameTrafficDistribution gate on, GA and locked since v1.35) for
// eps, one port's endpoints in kube-proxy's order, on the node named node
// in zone zone. Usable endpoints are the ready ones, falling back
// (separately for Cluster and Local) to the serving and terminating ones;
// Cluster endpoints follow topology hints when every ready endpoint has
// one and one names this node (PreferSameNode) or its zone
// (PreferSameZone). usesCluster and usesLocal are the service port's
// UsesClusterEndpoints and UsesLocalEndpoints (UsesEndpoints).
//
// The common case (every endpoint ready, no topology hints) allocates
// nothing for the Cluster endpoints.
func CategorizeEndpoints(eps []PortEndpoint, usesCluster, usesLocal bool, node, zone string) Categories {
	var c Categories
	if len(eps) == 0 {
		return c
	}
	mode := topologyNone
	if usesCluster {
		mode = topologyMode(eps, node, zone)
		c.Cluster = clusterEndpoints(eps, mode, node, zone)
		c.HasAny = len(c.Cluster) > 0
	}
	if !usesLocal {
		c.Reachable = c.Cluster
		return c
	}
	var terminating, anywhere bool
	c.Local, terminating, anywhere = localEndpoints(eps, node)
	c.HasAny = c.HasAny || anywhere
	switch {
	case !usesCluster:
		c.Reachable = c.Local
	case mode == topologyNone && !terminating:
		c.Reachable = c.Cluster // every ready endpoint: a superset of Local
	default:
		c.Reachable = union(c.Cluster, c.Local)
	}
	return c
}

// CategorizedAddrs is CategorizeEndpoints for port p of s as "IP:port"
// strings in kube-proxy's order (PortEndpoints). With the Cluster policy
// only and no topology hints (the common case) it builds the cluster list
// directly, without the PortEndpoints copies (UsableEndpointAddrs).
func (s *Service) CategorizedAddrs(p Port, usesCluster, usesLocal bool, node, zone string) (cluster, local, reachable []string, hasAny bool) {
	if usesCluster && !usesLocal && !HasTopologyHints(s.Endpoints) {
		cluster = s.UsableEndpointAddrs(p)
		return cluster, nil, cluster, len(cluster) > 0
	}
	eps := s.PortEndpoints(p)
	c := CategorizeEndpoints(eps, usesCluster, usesLocal, node, zone)
	cluster, local = EndpointAddrs(eps, c.Cluster), EndpointAddrs(eps, c.Local)
	switch {
	case len(c.Reachable) == len(c.Cluster):
		reachable = cluster
	case len(c.Reachable) == len(c.Local):
		reachable = local
	default:
		reachable = EndpointAddrs(eps, c.Reachable)
	}
	return cluster, local, reachable, c.HasAny
}

// UsesEndpoints returns kube-proxy's ServicePort UsesClusterEndpoints and
// UsesLocalEndpoints (pkg/proxy/serviceport.go) for a port with those
// internal and external traffic policies: accessible is whether the port
// is externally accessible (a node port, an external or load-balancer IP),
// without which the external policy does not apply.
func UsesEndpoints(internalLocal, externalLocal, accessible bool) (usesCluster, usesLocal bool) {
	return !internalLocal || accessible, internalLocal || externalLocal && accessible
}

// clusterEndpoints is the Cluster policy's endpoints: the ready ones the
// topology mode leaves to this node, else the serving terminating ones.
func clusterEndpoints(eps []PortEndpoint, mode int, node, zone string) []int {
	if mode == topologyNone && allPortReady(eps) {
		return identity(len(eps))
	}
	out := selectIndexes(eps, func(e *PortEndpoint) bool { return e.Ready && availableForTopology(e, mode, node, zone) })
	if len(out) == 0 {
		out = selectIndexes(eps, servingTerminating)
	}
	return out
}

// localEndpoints is the Local policy's endpoints (the local ready ones,
// else the local serving terminating ones), whether it fell back to the
// terminating ones, and whether any endpoint anywhere is usable.
func localEndpoints(eps []PortEndpoint, node string) (local []int, terminating, anywhere bool) {
	var localReady, localTerminating bool
	for i := range eps {
		e := &eps[i]
		switch {
		case e.Ready:
			anywhere = true
			localReady = localReady || e.IsLocal(node)
		case servingTerminating(e):
			anywhere = true
			localTerminating = localTerminating || e.IsLocal(node)
		}
	}
	switch {
	case localReady:
		local = selectIndexes(eps, func(e *PortEndpoint) bool { return e.IsLocal(node) && e.Ready })
	case localTerminating:
		local = selectIndexes(eps, func(e *PortEndpoint) bool { return e.IsLocal(node) && servingTerminating(e) })
	}
	return local, !localReady && localTerminating, anywhere
}

func servingTerminating(e *PortEndpoint) bool { return e.IsServing() && e.Terminating }

// topologyMode is kube-proxy's topologyModeFromHints over the ready
// endpoints: same node when every one has node hints and one names node,
// else same zone when every one has zone hints and one names zone.
func topologyMode(eps []PortEndpoint, node, zone string) int {
	ready, forNode, allNode, forZone, allZone := false, false, true, false, true
	for i := range eps {
		e := &eps[i]
		if !e.Ready {
			continue
		}
		ready = true
		if len(e.NodeHints) == 0 {
			allNode = false
		} else if slices.Contains(e.NodeHints, node) {
			forNode = true
		}
		if len(e.ZoneHints) == 0 {
			allZone = false
		} else if slices.Contains(e.ZoneHints, zone) {
			forZone = true
		}
	}
	switch {
	case !ready:
		return topologyNone
	case allNode && forNode:
		return topologySameNode
	case allZone && forZone:
		return topologySameZone
	}
	return topologyNone
}

// availableForTopology is kube-proxy's function of that name.
func availableForTopology(e *PortEndpoint, mode int, node, zone string) bool {
	switch mode {
	case topologySameNode:
		return slices.Contains(e.NodeHints, node)
	case topologySameZone:
		return slices.Contains(e.ZoneHints, zone)
	}
	return true
}

// HasTopologyHints reports whether any endpoint carries a topology hint,
// without which CategorizeEndpoints' Cluster endpoints are the usable ones
// (UsableEndpoints).
func HasTopologyHints(eps []Endpoint) bool {
	for i := range eps {
		if len(eps[i].ZoneHints) > 0 || len(eps[i].NodeHints) > 0 {
			return true
		}
	}
	return false
}

// EndpointAddrs returns the "IP:port" strings of eps at the indexes idx
// (nil for none), in idx's order.
func EndpointAddrs(eps []PortEndpoint, idx []int) []string {
	if idx == nil {
		return nil
	}
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = eps[j].Addr
	}
	return out
}

func allPortReady(eps []PortEndpoint) bool {
	for i := range eps {
		if !eps[i].Ready {
			return false
		}
	}
	return true
}

// selectIndexes returns the indexes of the endpoints keep accepts (never nil:
// kube-proxy's filterEndpoints returns an empty list, not none).
func selectIndexes(eps []PortEndpoint, keep func(*PortEndpoint) bool) []int {
	out := make([]int, 0, len(eps))
	for i := range eps {
		if keep(&eps[i]) {
			out = append(out, i)
		}
	}
	return out
}

// union merges two ascending index lists into one without repeats
// (kube-proxy merges them in a map, in no particular order).
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// identities is 0, 1, …, shared read-only by the identity slices of ports
// with up to that many endpoints.
var identities = identitySlice(4096)

// identity returns 0, 1, …, n-1 (nil for 0), not to be modified.
func identity(n int) []int {
	switch {
	case n == 0:
		return nil
	case n <= len(identities):
		return identities[:n:n]
	}
	return identitySlice(n)
}

func identitySlice(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
