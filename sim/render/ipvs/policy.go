package ipvs

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// policy is what kube-proxy's BaseServicePortInfo derives from a Service
// beyond its addresses (pkg/proxy/serviceport.go newBaseServiceInfo).
type policy struct {
	// externalLocal is apiservice.ExternalPolicyLocal: externalTrafficPolicy
	// Local on an externally reachable service (NodePort, LoadBalancer or
	// one with externalIPs).
	externalLocal bool
	// nodePorts: the service type allocates node ports.
	nodePorts bool
	// healthCheck is the health-check node port kube-proxy uses (a
	// LoadBalancer with externalTrafficPolicy Local), or 0.
	healthCheck int
	// ranges are the source ranges of the family, masked and once each
	// (kube-proxy's sets hold each member once); a zero-length one means
	// "allow any" and empties the list, as kube-proxy does.
	ranges []netip.Prefix
	// ext and lbs are the external and load-balancer IPs, once each.
	ext, lbs []netip.Addr
}

func policyOf(s *model.Service) policy {
	lbOrNP := s.Type == model.NodePort || s.Type == model.LoadBalancer
	p := policy{
		externalLocal: s.ExternalPolicyLocal && (lbOrNP || len(s.ExternalIPs) > 0),
		nodePorts:     lbOrNP,
		ranges:        uniqPrefixes(s.LoadBalancerSourceRanges),
		ext:           uniq(s.ExternalIPs),
		lbs:           uniq(s.LoadBalancerIPs),
	}
	if s.Type == model.LoadBalancer && s.ExternalPolicyLocal {
		p.healthCheck = s.HealthCheckNodePort
	}
	for _, r := range p.ranges {
		if r.Bits() == 0 {
			p.ranges = nil
			break
		}
	}
	return p
}

// nodePort is port's node port as kube-proxy sees it (0: none).
func (pol policy) nodePort(port model.Port) int {
	if !pol.nodePorts {
		return 0
	}
	return port.NodePort
}

// externallyAccessible is BaseServicePortInfo.ExternallyAccessible.
func (pol policy) externallyAccessible(s *model.Service, port model.Port) bool {
	return pol.nodePort(port) != 0 || len(s.LoadBalancerIPs) > 0 || len(s.ExternalIPs) > 0
}

// uniq returns in without repeats, in order (in itself when it has none).
func uniq(in []netip.Addr) []netip.Addr {
	for i := 1; i < len(in); i++ {
		if contains(in[:i], in[i]) {
			out := append([]netip.Addr(nil), in[:i]...)
			for _, a := range in[i:] {
				if !contains(out, a) {
					out = append(out, a)
				}
			}
			return out
		}
	}
	return in
}

// uniqPrefixes returns the masked prefixes of in, once each, in order.
func uniqPrefixes(in []netip.Prefix) []netip.Prefix {
	if len(in) == 0 {
		return nil
	}
	out := make([]netip.Prefix, 0, len(in))
	for _, p := range in {
		p = p.Masked()
		dup := false
		for _, q := range out {
			dup = dup || q == p
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

// realServers returns the "IP:port" real servers of port's virtual servers
// as kube-proxy's syncEndpoint picks them: internal for the ClusterIP one
// (onlyNodeLocalEndpoints = internalTrafficPolicy Local), external for the
// external-IP, load-balancer and node-port ones (externalTrafficPolicy
// Local). A Local policy takes the local endpoints when there are any and
// the cluster endpoints otherwise (kubernetes#97081).
func (n *node) realServers(s *model.Service, pol policy, port model.Port) (internal, external []string) {
	usesCluster, usesLocal := model.UsesEndpoints(s.InternalPolicyLocal, pol.externalLocal, pol.externallyAccessible(s, port))
	cluster, local, _, _ := s.CategorizedAddrs(port, usesCluster, usesLocal, n.name, n.zone)
	pick := func(onlyLocal bool) []string {
		if onlyLocal && len(local) > 0 {
			return local
		}
		return cluster
	}
	return pick(s.InternalPolicyLocal), pick(pol.externalLocal)
}
