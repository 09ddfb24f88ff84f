package iptables

import (
	"strconv"

	"github.com/svclab/svclab/sim/model"
)

// serviceFilterRules writes the filter rules of a service's ports in
// kube-proxy's order: REJECT (no endpoints) or DROP (no local endpoints)
// for the ClusterIP, external IPs, load-balancer IPs and node port that
// have no endpoint to go to, the KUBE-PROXY-FIREWALL drop of each
// load-balancer IP behind source ranges, and the health check node port's
// ACCEPT.
func (r *renderer) serviceFilterRules(s *model.Service) {
	for _, p := range s.Ports {
		sp := newServicePort(s, p, r.node)
		r.portFilterRules(&sp)
	}
}

func (r *renderer) portFilterRules(sp *servicePort) {
	if sp.hasInternal && sp.hasExternal && !sp.usesFW && sp.healthCheckNodePort == 0 {
		return // the common case: nothing to write
	}
	internalTarget, internalComment := " -j REJECT", ""
	externalTarget, externalComment := " -j REJECT", ""
	if !sp.hasEndpoints {
		a, b, c := sp.phrase(` has no endpoints"`)
		internalComment = a + b + c
		externalComment = internalComment
	} else {
		internalTarget, externalTarget = " -j DROP", " -j DROP"
		internalComment = sp.quoted("", " has no local endpoints")
		externalComment = internalComment
	}
	port := strconv.Itoa(sp.port.Port)
	match := " -m " + sp.proto + " -p " + sp.proto
	if !sp.hasInternal {
		r.rule("-A KUBE-SERVICES -m comment --comment ", internalComment, match,
			" -d ", sp.svc.ClusterIP.String(), " --dport ", port, internalTarget)
	}
	if !sp.hasExternal {
		for _, ip := range sp.externalIPs {
			r.rule("-A KUBE-EXTERNAL-SERVICES -m comment --comment ", externalComment, match,
				" -d ", ip.String(), " --dport ", port, externalTarget)
		}
	}
	if sp.usesFW {
		comment := sp.quoted("", " traffic not accepted by "+sp.fwChain())
		for _, ip := range sp.lbIPs {
			r.rule("-A KUBE-PROXY-FIREWALL -m comment --comment ", comment, match,
				" -d ", ip.String(), " --dport ", port, " -j DROP")
		}
	}
	if !sp.hasExternal {
		for _, ip := range sp.lbIPs {
			r.rule("-A KUBE-EXTERNAL-SERVICES -m comment --comment ", externalComment, match,
				" -d ", ip.String(), " --dport ", port, externalTarget)
		}
		if sp.isNodePort() {
			r.rule("-A KUBE-EXTERNAL-SERVICES -m comment --comment ", externalComment, " -m addrtype --dst-type LOCAL",
				match, " --dport ", strconv.Itoa(sp.nodePort), externalTarget)
		}
	}
	if sp.healthCheckNodePort != 0 {
		r.rule("-A KUBE-NODEPORTS -m comment --comment ", sp.quoted("", " health check node port"),
			" -m tcp -p tcp --dport ", strconv.Itoa(sp.healthCheckNodePort), " -j ACCEPT")
	}
}
