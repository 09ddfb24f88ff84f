package ipvs

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// node holds the facts of the rendered node that one render shares: its
// family, name and zone, its addresses as kube-proxy's netlink handle and
// --nodeport-addresses see them, and the set names of the family.
type node struct {
	family model.Family
	name   string
	zone   string
	// ip is kube-proxy's node IP (the proxier's nodeIP): the model's
	// Cluster.NodeIP, else the first of Options.NodeIPs of the family.
	ip netip.Addr
	// local is nodeAddressSet: every node address outside kube-ipvs0 but
	// loopback (and IPv6 link-local) ones; external and load-balancer IPs
	// among them are not bound to kube-ipvs0.
	local []netip.Addr
	// nodePortIPs are the addresses NodePort virtual servers listen on.
	nodePortIPs []netip.Addr
	names       *[numSets]string
}

// newNode derives the node facts of m's family from m and opts.
func newNode(m *model.Model, opts Options) node {
	cl := m.Cluster
	n := node{family: m.Family, name: cl.NodeName, zone: cl.NodeZone, names: &setNames[familyIndex(m.Family)]}
	var candidates []netip.Addr
	for _, a := range append(append([]netip.Addr(nil), opts.NodeIPs...), cl.NodeIP) {
		if n.family.Has(a) && !contains(candidates, a) {
			candidates = append(candidates, a)
		}
	}
	if n.family.Has(cl.NodeIP) {
		n.ip = cl.NodeIP
	} else if len(candidates) > 0 {
		n.ip = candidates[0]
	}
	for _, a := range candidates {
		if !a.IsLoopback() && !(n.family == model.IPv6 && a.IsLinkLocalUnicast()) {
			n.local = append(n.local, a)
		}
	}
	cidrs, all := nodePortCIDRs(opts.Flags, n.family, n.ip)
	if all {
		n.nodePortIPs = n.local
		return n
	}
	for _, a := range candidates {
		if !a.IsLoopback() && inAny(cidrs, a) {
			n.nodePortIPs = append(n.nodePortIPs, a)
		}
	}
	return n
}

// nodePortCIDRs is kube-proxy's NodePortAddresses for family f: the
// configured CIDRs of that family ("primary" being the node IP), or all
// addresses when there is none or one is a zero CIDR.
func nodePortCIDRs(p render.Flags, f model.Family, nodeIP netip.Addr) ([]netip.Prefix, bool) {
	var out []netip.Prefix
	for _, c := range p.NodePortAddresses {
		if f.Has(c.Addr()) {
			out = append(out, c)
		}
	}
	if p.NodePortPrimary && nodeIP.IsValid() {
		out = append(out, netip.PrefixFrom(nodeIP, nodeIP.BitLen()))
	}
	for _, c := range out {
		if c.Bits() == 0 {
			return nil, true
		}
	}
	return out, len(out) == 0
}

// isLocal reports whether a is one of the node's addresses.
func (n *node) isLocal(a netip.Addr) bool { return contains(n.local, a) }

// setName is set id's name in the node's family.
func (n *node) setName(id setID) string { return n.names[id] }

// checkService rejects a service of the other family: the renderer draws
// one family, the model's, and wants the model projected onto it.
func (n *node) checkService(s *model.Service) error {
	if !n.family.Has(s.ClusterIP) {
		return fmt.Errorf("ipvs: service %s/%s: clusterIP %s is not %s, the family rendered: render model.ForFamily(m, %s)",
			s.Namespace, s.Name, s.ClusterIP, n.family, model.FamilyOf(s.ClusterIP))
	}
	return nil
}

func contains(in []netip.Addr, a netip.Addr) bool {
	for _, b := range in {
		if a == b {
			return true
		}
	}
	return false
}

func inAny(cidrs []netip.Prefix, a netip.Addr) bool {
	for _, c := range cidrs {
		if c.Contains(a) {
			return true
		}
	}
	return false
}
