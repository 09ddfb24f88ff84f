package ipvs

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// entry is one set member, as kube-proxy's ipset Entry holds it; which
// fields count depends on the set's type.
type entry struct {
	ip    netip.Addr
	proto string // "tcp", "udp", "sctp"
	port  int
	ip2   netip.Addr   // hash:ip,port,ip
	net   netip.Prefix // hash:ip,port,net
}

// sink receives what kube-proxy's syncProxyRules puts into its sets and
// its list of load balancers the node may not reach.
type sink interface {
	// add is one member of set id.
	add(id setID, e entry)
	// loopback is the KUBE-LOOP-BACK members of s's port p: its endpoints
	// on this node, ready or not.
	loopback(s *model.Service, p model.Port, proto string)
	// bind is an address on kube-ipvs0 (KUBE-IPVS-IPS): the ClusterIP
	// once per service, or an external or load-balancer IP.
	bind(a netip.Addr, external bool)
	// noNodeAccess is a load-balancer IP:port whose source ranges leave
	// the node out (lbNoNodeAccessIPPortProtocolEntries).
	noNodeAccess(e entry)
}

// walkService feeds k every member kube-proxy derives from s, port by port
// in the order of syncProxyRules' loop over svcPortMap (the ClusterIP
// entry before the loop-back ones, as svclab always wrote them).
func (n *node) walkService(s *model.Service, k sink) {
	pol := policyOf(s)
	k.bind(s.ClusterIP, false)
	healthCheck := false
	for _, p := range s.Ports {
		proto := p.Protocol.Lower()
		k.add(setClusterIP, entry{ip: s.ClusterIP, proto: proto, port: p.Port})
		k.loopback(s, p, proto)
		for _, ext := range pol.ext {
			id := setExternalIP
			if pol.externalLocal {
				id = setExternalIPLocal
			}
			k.add(id, entry{ip: ext, proto: proto, port: p.Port})
			if !n.isLocal(ext) {
				k.bind(ext, true)
			}
		}
		for _, lb := range pol.lbs {
			n.walkLoadBalancer(lb, proto, p.Port, pol, k)
		}
		if np := pol.nodePort(p); np != 0 {
			if len(n.nodePortIPs) == 0 {
				continue // kube-proxy skips the rest of the port, health check included
			}
			n.walkNodePort(p.Protocol, np, pol, k)
		}
		if pol.healthCheck != 0 && !healthCheck {
			healthCheck = true
			k.add(setHealthCheckNodePort, entry{port: pol.healthCheck})
		}
	}
}

// walkLoadBalancer feeds the members of one load-balancer ingress IP.
func (n *node) walkLoadBalancer(lb netip.Addr, proto string, port int, pol policy, k sink) {
	e := entry{ip: lb, proto: proto, port: port}
	k.add(setLoadBalancer, e)
	if pol.externalLocal {
		k.add(setLoadBalancerLocal, e)
	}
	if len(pol.ranges) > 0 {
		k.add(setLoadBalancerFW, e)
		allowFromNode := false
		for _, r := range pol.ranges {
			k.add(setLoadBalancerSourceCIDR, entry{ip: lb, proto: proto, port: port, net: r})
			allowFromNode = allowFromNode || (n.ip.IsValid() && r.Contains(n.ip))
		}
		if allowFromNode {
			k.add(setLoadBalancerSourceIP, entry{ip: lb, proto: proto, port: port, ip2: lb})
		} else {
			k.noNodeAccess(e)
		}
	}
	if !n.isLocal(lb) {
		k.bind(lb, true)
	}
}

// walkNodePort feeds the members of one node port: the port in the
// protocol's bitmap, or nodeIP,sctp:port per node IP for SCTP, and the
// same in the Local set with externalTrafficPolicy Local.
func (n *node) walkNodePort(p model.Protocol, port int, pol policy, k sink) {
	id, local := nodePortSets(p)
	for _, e := range n.nodePortEntries(p, port) {
		k.add(id, e)
	}
	if pol.externalLocal {
		for _, e := range n.nodePortEntries(p, port) {
			k.add(local, e)
		}
	}
}

func (n *node) nodePortEntries(p model.Protocol, port int) []entry {
	if p != model.SCTP {
		return []entry{{port: port}}
	}
	out := make([]entry, len(n.nodePortIPs))
	for i, ip := range n.nodePortIPs {
		out[i] = entry{ip: ip, proto: "sctp", port: port}
	}
	return out
}

// nodePortSets are the node-port set of protocol p and its Local twin.
func nodePortSets(p model.Protocol) (setID, setID) {
	switch p {
	case model.UDP:
		return setNodePortUDP, setNodePortLocalUDP
	case model.SCTP:
		return setNodePortSCTP, setNodePortLocalSCTP
	}
	return setNodePortTCP, setNodePortLocalTCP
}
