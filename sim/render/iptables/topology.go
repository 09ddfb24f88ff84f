package iptables

import (
	"slices"

	"github.com/svclab/svclab/sim/model"
)

// The topology modes of kube-proxy's topologyModeFromHints.
const (
	topologyNone     = ""
	topologySameZone = "PreferSameZone"
	topologySameNode = "PreferSameNode"
)

// node is what kube-proxy's CategorizeEndpoints knows of the node it runs
// on: its name and its topology.kubernetes.io/zone label.
type node struct{ name, zone string }

// categorized is the result of kube-proxy's CategorizeEndpoints for one
// service port: the endpoints of the Cluster and the Local traffic
// policies ("IP:port", in kube-proxy's string order), every endpoint
// reachable from this node (their union) and whether the service has a
// usable endpoint anywhere.
type categorized struct {
	cluster, local, reachable []string
	hasAny                    bool
}

// categorize is pkg/proxy/topology.go's CategorizeEndpoints (v1.35.4 and
// v1.37.2 agree): usable endpoints are the ready ones, falling back
// (separately for Cluster and Local) to the serving and terminating ones;
// Cluster endpoints follow topology hints when every ready endpoint has
// one and one names this node (PreferSameNode) or its zone
// (PreferSameZone).
func categorize(eps []model.PortEndpoint, usesCluster, usesLocal bool, n node) categorized {
	var out categorized
	if len(eps) == 0 {
		return out
	}
	mode := topologyNone
	if usesCluster {
		mode = topologyMode(eps, n)
		out.cluster = addrs(eps, func(e *model.PortEndpoint) bool { return e.Ready && availableForTopology(e, mode, n) })
		if len(out.cluster) == 0 {
			out.cluster = addrs(eps, func(e *model.PortEndpoint) bool { return e.IsServing() && e.Terminating })
		}
		out.hasAny = len(out.cluster) > 0
	}
	if !usesLocal {
		out.reachable = out.cluster
		return out
	}
	var localReady, localTerminating bool
	for i := range eps {
		e := &eps[i]
		switch {
		case e.Ready:
			out.hasAny = true
			localReady = localReady || e.IsLocal(n.name)
		case e.IsServing() && e.Terminating:
			out.hasAny = true
			localTerminating = localTerminating || e.IsLocal(n.name)
		}
	}
	switch {
	case localReady:
		out.local = addrs(eps, func(e *model.PortEndpoint) bool { return e.IsLocal(n.name) && e.Ready })
	case localTerminating:
		out.local = addrs(eps, func(e *model.PortEndpoint) bool {
			return e.IsLocal(n.name) && e.IsServing() && e.Terminating
		})
	}
	switch {
	case !usesCluster:
		out.reachable = out.local
	case mode == topologyNone && !(localTerminating && !localReady):
		out.reachable = out.cluster // a superset of the ready local endpoints
	default:
		out.reachable = union(eps, out.cluster, out.local)
	}
	return out
}

// topologyMode is kube-proxy's topologyModeFromHints, with the
// PreferSameTrafficDistribution gate on (GA and locked in v1.35+).
func topologyMode(eps []model.PortEndpoint, n node) string {
	ready, forNode, allNode, forZone, allZone := false, false, true, false, true
	for i := range eps {
		e := &eps[i]
		if !e.Ready {
			continue
		}
		ready = true
		if len(e.NodeHints) == 0 {
			allNode = false
		} else if slices.Contains(e.NodeHints, n.name) {
			forNode = true
		}
		if len(e.ZoneHints) == 0 {
			allZone = false
		} else if slices.Contains(e.ZoneHints, n.zone) {
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
func availableForTopology(e *model.PortEndpoint, mode string, n node) bool {
	switch mode {
	case topologyNone:
		return true
	case topologySameNode:
		return slices.Contains(e.NodeHints, n.name)
	case topologySameZone:
		return slices.Contains(e.ZoneHints, n.zone)
	}
	return false
}

// hasHints reports whether any endpoint carries a topology hint, without
// which CategorizeEndpoints' topology mode is always none.
func hasHints(eps []model.Endpoint) bool {
	for i := range eps {
		if len(eps[i].ZoneHints) > 0 || len(eps[i].NodeHints) > 0 {
			return true
		}
	}
	return false
}

func addrs(eps []model.PortEndpoint, keep func(*model.PortEndpoint) bool) []string {
	out := make([]string, 0, len(eps))
	for i := range eps {
		if keep(&eps[i]) {
			out = append(out, eps[i].Addr)
		}
	}
	return out
}

// union returns the endpoints of eps in a or b, in eps' order (kube-proxy
// merges the two lists in a map; the order of the KUBE-SEP chains it
// writes from it does not matter after the canonical sort).
func union(eps []model.PortEndpoint, a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for i := range eps {
		if slices.Contains(a, eps[i].Addr) || slices.Contains(b, eps[i].Addr) {
			out = append(out, eps[i].Addr)
		}
	}
	return out
}
