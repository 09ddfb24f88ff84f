package ipvs

import (
	"slices"

	"github.com/svclab/svclab/sim/model"
)

// Topology modes of kube-proxy's topologyModeFromHints.
const (
	topologyNone = iota
	topologySameNode
	topologySameZone
)

// categorize is kube-proxy's CategorizeEndpoints (pkg/proxy/topology.go,
// the same outcome in v1.35 and v1.37, PreferSameTrafficDistribution on)
// for one service port's endpoints: the cluster endpoints (ready ones
// allowed by the topology hints, else the serving and terminating ones)
// when usesCluster, and the local ones (ready, else serving and
// terminating) when usesLocal, as "IP:port" strings in eps' order.
func (n *node) categorize(eps []model.PortEndpoint, usesCluster, usesLocal bool) (cluster, local []string) {
	if len(eps) == 0 {
		return nil, nil
	}
	if usesCluster {
		mode := n.topologyMode(eps)
		cluster = addrsOf(eps, func(e *model.PortEndpoint) bool { return e.Ready && n.availableFor(e, mode) })
		if len(cluster) == 0 {
			cluster = addrsOf(eps, servingTerminating)
		}
	}
	if !usesLocal {
		return cluster, nil
	}
	var localReady, localST bool
	for i := range eps {
		e := &eps[i]
		switch {
		case e.Ready:
			localReady = localReady || e.IsLocal(n.name)
		case servingTerminating(e):
			localST = localST || e.IsLocal(n.name)
		}
	}
	switch {
	case localReady:
		local = addrsOf(eps, func(e *model.PortEndpoint) bool { return e.IsLocal(n.name) && e.Ready })
	case localST:
		local = addrsOf(eps, func(e *model.PortEndpoint) bool { return e.IsLocal(n.name) && servingTerminating(e) })
	}
	return cluster, local
}

// servingTerminating is kube-proxy's IsServing() && IsTerminating() for an
// endpoint that is not ready (its serving condition as the slice says).
func servingTerminating(e *model.PortEndpoint) bool { return e.Serving && e.Terminating }

// topologyMode is kube-proxy's topologyModeFromHints over the ready
// endpoints: same-node when all have node hints and one names this node,
// else same-zone when all have zone hints and one names this zone.
func (n *node) topologyMode(eps []model.PortEndpoint) int {
	ready, allNode, forNode, allZone, forZone := false, true, false, true, false
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

// availableFor is kube-proxy's availableForTopology.
func (n *node) availableFor(e *model.PortEndpoint, mode int) bool {
	switch mode {
	case topologySameNode:
		return slices.Contains(e.NodeHints, n.name)
	case topologySameZone:
		return slices.Contains(e.ZoneHints, n.zone)
	}
	return true
}

func addrsOf(eps []model.PortEndpoint, keep func(*model.PortEndpoint) bool) []string {
	var out []string
	for i := range eps {
		if keep(&eps[i]) {
			out = append(out, eps[i].Addr)
		}
	}
	return out
}
