package nftables

import (
	"slices"

	"github.com/svclab/svclab/sim/model"
)

// categories is kube-proxy's CategorizeEndpoints result (pkg/proxy/
// topology.go, the same in v1.35.4 and v1.37.2) as indexes: reachable
// indexes the port's endpoints, cluster and local index reachable.
type categories struct {
	reachable, cluster, local []int
	hasAny                    bool
}

// categorize splits eps (a port's endpoints in kube-proxy's order) into
// the endpoints of the Cluster and the Local traffic policy: ready ones
// (for Cluster, those topology hints leave to this node or zone), else
// the serving terminating ones; reachable is their union.
func categorize(eps []model.PortEndpoint, usesCluster, usesLocal bool, node, zone string) categories {
	var c categories
	if len(eps) == 0 {
		return c
	}
	if usesCluster && !usesLocal && plain(eps) {
		c.reachable, c.cluster, c.hasAny = identity(len(eps)), identity(len(eps)), true
		return c
	}
	var cluster []int
	if usesCluster {
		mode := topologyMode(eps, node, zone)
		cluster = selectEndpoints(eps, func(e *model.PortEndpoint) bool { return e.Ready && availableForTopology(e, mode, node, zone) })
		if len(cluster) == 0 {
			cluster = selectEndpoints(eps, func(e *model.PortEndpoint) bool { return e.IsServing() && e.Terminating })
		}
		c.hasAny = len(cluster) > 0
	}
	if !usesLocal {
		return indexed(c, cluster, nil)
	}
	local, anywhere := localEndpoints(eps, node)
	c.hasAny = c.hasAny || anywhere
	if !usesCluster {
		return indexed(c, nil, local)
	}
	// Without topology or the terminating fallback local ⊆ cluster and
	// the union is cluster, as kube-proxy takes it.
	return indexed(c, cluster, local)
}

// plain reports whether every endpoint is ready and without hints: the
// Cluster policy takes them all (the common case, without allocations).
func plain(eps []model.PortEndpoint) bool {
	for i := range eps {
		if !eps[i].Ready || eps[i].NodeHints != nil || eps[i].ZoneHints != nil {
			return false
		}
	}
	return true
}

// localEndpoints returns the Local policy's endpoints (local ready ones,
// else local serving terminating ones) and whether any endpoint anywhere
// is usable.
func localEndpoints(eps []model.PortEndpoint, node string) (local []int, anywhere bool) {
	var ready, terminating bool
	for i := range eps {
		e := &eps[i]
		switch {
		case e.Ready:
			anywhere = true
			ready = ready || e.IsLocal(node)
		case e.IsServing() && e.Terminating:
			anywhere = true
			terminating = terminating || e.IsLocal(node)
		}
	}
	switch {
	case ready:
		local = selectEndpoints(eps, func(e *model.PortEndpoint) bool { return e.IsLocal(node) && e.Ready })
	case terminating:
		local = selectEndpoints(eps, func(e *model.PortEndpoint) bool {
			return e.IsLocal(node) && e.IsServing() && e.Terminating
		})
	}
	return local, anywhere
}

// indexed sets c.reachable to the union of cluster and local (indexes of
// the port's endpoints, cluster first) and re-indexes both into it.
func indexed(c categories, cluster, local []int) categories {
	switch {
	case local == nil:
		c.reachable, c.cluster = cluster, identity(len(cluster))
		return c
	case cluster == nil:
		c.reachable, c.local = local, identity(len(local))
		return c
	}
	c.reachable = append(c.reachable, cluster...)
	for _, j := range local {
		if !slices.Contains(cluster, j) {
			c.reachable = append(c.reachable, j)
		}
	}
	c.cluster = identity(len(cluster))
	c.local = make([]int, len(local))
	for i, j := range local {
		c.local[i] = slices.Index(c.reachable, j)
	}
	return c
}

// identities is 0, 1, …, shared read-only by the identity slices of
// ports with up to that many endpoints.
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

// selectEndpoints returns the indexes of the endpoints keep accepts.
func selectEndpoints(eps []model.PortEndpoint, keep func(*model.PortEndpoint) bool) []int {
	out := make([]int, 0, len(eps))
	for i := range eps {
		if keep(&eps[i]) {
			out = append(out, i)
		}
	}
	return out
}

// Topology modes (v1.ServiceTrafficDistributionPreferSameZone / Node).
const (
	preferSameZone = "PreferSameZone"
	preferSameNode = "PreferSameNode"
)

// topologyMode is kube-proxy's topologyModeFromHints with the
// PreferSameTrafficDistribution gate on (GA and locked since v1.35): same
// node when every ready endpoint has node hints and one names this node,
// else same zone when every ready endpoint has zone hints and one names
// this zone, else none.
func topologyMode(eps []model.PortEndpoint, node, zone string) string {
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
		return ""
	case allNode && forNode:
		return preferSameNode
	case allZone && forZone:
		return preferSameZone
	}
	return ""
}

// availableForTopology reports whether e serves this node in mode.
func availableForTopology(e *model.PortEndpoint, mode, node, zone string) bool {
	switch mode {
	case preferSameNode:
		return slices.Contains(e.NodeHints, node)
	case preferSameZone:
		return slices.Contains(e.ZoneHints, zone)
	}
	return true
}
