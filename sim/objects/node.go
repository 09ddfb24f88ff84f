package objects

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/svclab/svclab/sim/model"
)

// Node is what the rules depend on of a Node object: its name, its
// topology.kubernetes.io/zone label, and its first InternalIP of each
// family (an ExternalIP when it has no InternalIP of that family).
type Node struct {
	Name       string
	Zone       string
	IPv4, IPv6 netip.Addr
}

// DefaultNode is the node name used when the objects name none.
const DefaultNode = "node-1"

func readNode(n *corev1.Node) Node {
	out := Node{Name: n.Name, Zone: n.Labels[corev1.LabelTopologyZone]}
	for _, typ := range []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP} {
		for _, a := range n.Status.Addresses {
			ip, ok := parseIP(a.Address)
			if a.Type != typ || !ok {
				continue
			}
			if model.FamilyOf(ip) == model.IPv4 && !out.IPv4.IsValid() {
				out.IPv4 = ip
			}
			if model.FamilyOf(ip) == model.IPv6 && !out.IPv6.IsValid() {
				out.IPv6 = ip
			}
		}
	}
	return out
}

// LocalNode returns the node the rules are rendered for: the Node called
// name when name is set (just the name when the file has no such Node);
// else the first Node of the file; else the first node an endpoint names;
// else DefaultNode. Every choice depends on document order only, so an
// anonymised copy picks the same node.
func (o *Objects) LocalNode(name string) Node {
	for _, n := range o.Nodes {
		if name == "" || n.Name == name {
			return n
		}
	}
	if name != "" {
		return Node{Name: name}
	}
	for _, s := range o.Services {
		for _, e := range s.Endpoints {
			if e.Node != "" {
				return Node{Name: e.Node}
			}
		}
	}
	return Node{Name: DefaultNode}
}

// Apply sets the cluster's node name, zone and addresses to n's.
func (n Node) Apply(c *model.Cluster) {
	c.NodeName = n.Name
	c.NodeZone = n.Zone
	switch {
	case n.IPv4.IsValid():
		c.NodeIP = n.IPv4
	case n.IPv6.IsValid():
		c.NodeIP = n.IPv6
	}
	c.NodeIPv6 = n.IPv6
}

// KnownNode reports whether name is a Node of the file or the node of one
// of its endpoints: a node the rules can be rendered for.
func (o *Objects) KnownNode(name string) bool {
	for _, n := range o.NodeNames() {
		if n == name {
			return true
		}
	}
	return false
}

// NodeNames returns the names of the file's Nodes and of the nodes its
// endpoints name, each once, in document order.
func (o *Objects) NodeNames() []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, n := range o.Nodes {
		add(n.Name)
	}
	for _, s := range o.Services {
		for _, e := range s.Endpoints {
			add(e.Node)
		}
	}
	return out
}
