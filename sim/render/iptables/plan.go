package iptables

import (
	"net/netip"

	"github.com/svclab/svclab/sim/kpname"
	"github.com/svclab/svclab/sim/model"
)

// servicePort is one service port with the names kube-proxy derives for it
// and the decisions its syncProxyRules makes before writing a rule.
type servicePort struct {
	svc      *model.Service
	port     model.Port
	name     string // "ns/svc:port"
	plain    bool   // name can be copied into comments as kube-proxy does
	proto    string // "tcp"
	nodePort int    // 0 unless a NodePort or LoadBalancer service allocated one
	svcChain string // KUBE-SVC: the Cluster policy chain
	extChain string // KUBE-EXT

	// The endpoints of each traffic policy and all reachable ones (see
	// categorize).
	endpoints, local, reachable []string

	// ExternalIPs, load-balancer IPs and source ranges as kube-proxy's
	// servicePortInfo keeps them: ranges masked, none when one of them is
	// a zero-length prefix (allow any).
	externalIPs, lbIPs []netip.Addr
	sourceRanges       []netip.Prefix

	externalPolicyLocal, internalPolicyLocal bool
	healthCheckNodePort                      int
	clientIP                                 bool // session affinity ClientIP
	timeout                                  int  // its timeout in seconds

	hasEndpoints, hasInternal, hasExternal  bool
	usesCluster, usesLocal, usesExt, usesFW bool
}

// newServicePort computes what kube-proxy computes for port p of s (s is
// of the renderer's family) on node n.
func newServicePort(s *model.Service, p model.Port, n node) servicePort {
	name := s.PortName(p)
	proto := p.Protocol.Lower()
	sp := servicePort{
		svc: s, port: p, name: name, plain: plainName(name), proto: proto,
		svcChain:            kpname.ServiceChain(name, proto),
		extChain:            kpname.ExternalChain(name, proto),
		externalIPs:         s.ExternalIPs,
		lbIPs:               s.LoadBalancerIPs,
		internalPolicyLocal: s.InternalPolicyLocal,
	}
	if s.Type == model.NodePort || s.Type == model.LoadBalancer {
		sp.nodePort = p.NodePort
	}
	sp.clientIP, sp.timeout = affinity(s)
	sp.externalPolicyLocal = externalPolicyLocal(s)
	if s.Type == model.LoadBalancer && sp.externalPolicyLocal {
		sp.healthCheckNodePort = s.HealthCheckNodePort
	}
	if len(s.LoadBalancerSourceRanges) > 0 {
		sp.sourceRanges = sourceRanges(s.LoadBalancerSourceRanges)
	}
	sp.categorize(n)
	sp.decide()
	return sp
}

// externalPolicyLocal is apiservice.ExternalPolicyLocal: the policy of an
// externally accessible service (NodePort, LoadBalancer, or ClusterIP with
// external IPs). The API server accepts externalTrafficPolicy only on
// those, so the flag is taken as the model gives it for a ClusterIP
// service: one family's projection of a dual-stack service may have lost
// the external IPs of the other family that make it accessible, and
// kube-proxy decides on the whole service.
func externalPolicyLocal(s *model.Service) bool {
	switch s.Type {
	case model.NodePort, model.LoadBalancer, model.ClusterIP, "":
		return s.ExternalPolicyLocal
	}
	return false
}

// sourceRanges returns the ranges as kube-proxy parses them (the network
// address, as net.IPNet prints it), or none if one allows any source.
func sourceRanges(in []netip.Prefix) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(in))
	for _, p := range in {
		if p.Bits() == 0 {
			return nil
		}
		out = append(out, p.Masked())
	}
	return out
}

// portAccessible is the servicePortInfo's ExternallyAccessible: a node
// port, a load-balancer IP or an external IP of this family.
func (sp *servicePort) portAccessible() bool {
	return sp.nodePort != 0 || len(sp.lbIPs) > 0 || len(sp.externalIPs) > 0
}

// categorize picks the endpoints of each policy (model.CategorizedAddrs).
func (sp *servicePort) categorize(n node) {
	usesCluster, usesLocal := model.UsesEndpoints(sp.internalPolicyLocal, sp.externalPolicyLocal, sp.portAccessible())
	sp.endpoints, sp.local, sp.reachable, sp.hasEndpoints = sp.svc.CategorizedAddrs(sp.port, usesCluster, usesLocal, n.name, n.zone)
	sp.usesCluster = len(sp.endpoints) > 0 && usesCluster
	sp.usesLocal = len(sp.local) > 0 && usesLocal
}

// decide sets the flags syncProxyRules derives from the endpoints.
func (sp *servicePort) decide() {
	sp.hasInternal = sp.hasEndpoints && (!sp.internalPolicyLocal || len(sp.local) > 0)
	sp.hasExternal = sp.hasEndpoints && (!sp.externalPolicyLocal || len(sp.local) > 0)
	sp.usesExt = sp.hasEndpoints && sp.portAccessible()
	sp.usesFW = sp.hasEndpoints && len(sp.lbIPs) > 0 && len(sp.sourceRanges) > 0
}

// localChain is the KUBE-SVL chain (Local policy).
func (sp *servicePort) localChain() string { return kpname.LocalServiceChain(sp.name, sp.proto) }

// fwChain is the KUBE-FW chain (load-balancer source ranges).
func (sp *servicePort) fwChain() string { return kpname.FirewallChain(sp.name, sp.proto) }

// internalChain is where ClusterIP traffic goes: KUBE-SVL with internal
// traffic policy Local, else KUBE-SVC.
func (sp *servicePort) internalChain() string {
	if sp.internalPolicyLocal {
		return sp.localChain()
	}
	return sp.svcChain
}

// externalPolicyChain is where external traffic ends up: KUBE-SVL with
// external traffic policy Local, else KUBE-SVC.
func (sp *servicePort) externalPolicyChain() string {
	if sp.externalPolicyLocal {
		return sp.localChain()
	}
	return sp.svcChain
}

// lbChain is where load-balancer IP traffic goes: KUBE-FW when source
// ranges apply, else KUBE-EXT.
func (sp *servicePort) lbChain() string {
	if sp.usesFW {
		return sp.fwChain()
	}
	return sp.extChain
}

func (sp *servicePort) sepChain(ep string) string { return kpname.EndpointChain(sp.name, sp.proto, ep) }

// chains calls f with the port's nat chains in kube-proxy's declaration
// order: EXT, FW, SVC, SVL, then one SEP per reachable endpoint.
func (sp *servicePort) chains(f func(chain string)) {
	if sp.usesExt {
		f(sp.extChain)
	}
	if sp.usesFW {
		f(sp.fwChain())
	}
	if sp.usesCluster {
		f(sp.svcChain)
	}
	if sp.usesLocal {
		f(sp.localChain())
	}
	for _, ep := range sp.reachable {
		f(sp.sepChain(ep))
	}
}
