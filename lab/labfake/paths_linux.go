package labfake

import (
	"net/netip"

	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// addresses indexes every address a programmed model answers on, for each
// family: ClusterIPs, the node's IPs at each NodePort, externalIPs and
// load-balancer IPs, each with the service projected onto its family.
func (l *Lab) addresses(m *model.Model) map[netip.AddrPort]located {
	index := map[netip.AddrPort]located{}
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
				add := func(ip netip.Addr, port int, kind scenario.TargetKind) {
					if ip.IsValid() && port != 0 {
						index[netip.AddrPortFrom(ip, uint16(port))] = located{svc: &s, port: p, position: i, kind: string(kind)}
					}
				}
				add(s.ClusterIP, p.Port, scenario.TargetClusterIP)
				if s.Type == model.NodePort || s.Type == model.LoadBalancer {
					add(node, p.NodePort, scenario.TargetNodePort)
				}
				for _, ip := range s.ExternalIPs {
					add(ip, p.Port, scenario.TargetExternalIP)
				}
				for _, ip := range s.LoadBalancerIPs {
					add(ip, p.Port, scenario.TargetLoadBalancer)
				}
			}
		}
	}
	return index
}

// external reports whether src is an address of the external client.
func (l *Lab) external(src netip.Addr) bool {
	for _, ip := range l.Spec.ExternalIPs {
		if src.IsValid() && ip == src {
			return true
		}
	}
	return false
}

// endpointsFor is what kube-proxy's rules let a connection from src reach
// at loc: nothing from outside a load-balancer IP's source ranges; the
// local endpoints only under a Local traffic policy on its path (the
// ClusterIP's internal one for every client, the external one for clients
// from outside); else the usable endpoints (ready, or serving-terminating
// when none is ready). In IPVS mode the ipset rules keep the source-range
// check, and the virtual server's real servers decide the rest (see
// pickFrom): then the Local filter must not apply here.
func (l *Lab) endpointsFor(d *Dataplane, loc located, src netip.Addr) []model.PortEndpoint {
	ext := l.external(src)
	if loc.kind == string(scenario.TargetLoadBalancer) && len(loc.svc.LoadBalancerSourceRanges) > 0 && !inAny(loc.svc.LoadBalancerSourceRanges, src) {
		return nil
	}
	local := loc.svc.ExternalPolicyLocal && ext && loc.kind != string(scenario.TargetClusterIP)
	local = local || (loc.svc.InternalPolicyLocal && loc.kind == string(scenario.TargetClusterIP))
	local = local && d.ipvs == nil
	var out []model.PortEndpoint
	for _, ep := range model.UsableEndpoints(loc.svc.PortEndpoints(loc.port)) {
		if !local || ep.IsLocal(l.Spec.NodeName) {
			out = append(out, ep)
		}
	}
	return out
}

// seenSource is the source address the pod sees: the node's address when
// the node masquerades (a connection from outside the cluster, except to
// an external address under externalTrafficPolicy: Local), the client's
// own otherwise.
func (l *Lab) seenSource(loc located, src netip.Addr, target netip.AddrPort) netip.Addr {
	if !src.IsValid() {
		src = topo.DefaultClientIP
		if target.Addr().Is6() {
			src = l.Spec.ClientIPv6
		}
	}
	if !l.external(src) || (loc.svc.ExternalPolicyLocal && loc.kind != string(scenario.TargetClusterIP)) {
		return src
	}
	if target.Addr().Is6() {
		return l.Spec.NodeIPv6
	}
	return l.Spec.NodeIP
}

func inAny(ranges []netip.Prefix, ip netip.Addr) bool {
	for _, r := range ranges {
		if r.Contains(ip) {
			return true
		}
	}
	return false
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
