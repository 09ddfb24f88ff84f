package iptables

import (
	"strconv"

	"github.com/svclab/svclab/sim/model"
)

// natChains calls f with each nat chain of s in kube-proxy's declaration
// order (see servicePort.chains). A port without endpoints has none.
func (r *renderer) natChains(s *model.Service, f func(chain string)) {
	for _, p := range s.Ports {
		sp := newServicePort(s, p, r.node)
		sp.chains(f)
	}
}

// serviceNatRules writes a service's nat rules in kube-proxy's order; its
// own chains' rules only when withChains is set.
func (r *renderer) serviceNatRules(s *model.Service, withChains bool) {
	for _, p := range s.Ports {
		sp := newServicePort(s, p, r.node)
		if !sp.hasEndpoints {
			continue
		}
		r.captureRules(&sp)
		if withChains {
			r.portChainRules(&sp)
		}
	}
}

// captureRules writes the KUBE-SERVICES and KUBE-NODEPORTS rules that send
// the port's ClusterIP, external IPs, load-balancer IPs and node port to
// its chains.
func (r *renderer) captureRules(sp *servicePort) {
	port := strconv.Itoa(sp.port.Port)
	if sp.hasInternal {
		a, b, c := sp.phrase(` cluster IP"`)
		r.rule(`-A KUBE-SERVICES -m comment --comment `, a, b, c, " -m ", sp.proto, " -p ", sp.proto,
			" -d ", sp.svc.ClusterIP.String(), " --dport ", port, " -j ", sp.internalChain())
	}
	if len(sp.externalIPs) > 0 {
		comment := sp.quoted("", " external IP")
		for _, ip := range sp.externalIPs {
			r.rule(`-A KUBE-SERVICES -m comment --comment `, comment, " -m ", sp.proto, " -p ", sp.proto,
				" -d ", ip.String(), " --dport ", port, " -j ", sp.extChain)
		}
	}
	if len(sp.lbIPs) > 0 {
		comment, chain := sp.quoted("", " loadbalancer IP"), sp.lbChain()
		for _, ip := range sp.lbIPs {
			r.rule(`-A KUBE-SERVICES -m comment --comment `, comment, " -m ", sp.proto, " -p ", sp.proto,
				" -d ", ip.String(), " --dport ", port, " -j ", chain)
		}
	}
	if sp.isNodePort() {
		nodePort := strconv.Itoa(sp.nodePort)
		if r.ports.localhost && r.family == model.IPv4 && r.opts.NFAcct {
			r.rule("-A KUBE-NODEPORTS -m comment --comment ", sp.bare(), " -m ", sp.proto, " -p ", sp.proto,
				" -d 127.0.0.0/8 --dport ", nodePort, " -m nfacct --nfacct-name localhost_nps_accepted_pkts -j ", sp.extChain)
		}
		r.rule("-A KUBE-NODEPORTS -m comment --comment ", sp.bare(), " -m ", sp.proto, " -p ", sp.proto,
			" --dport ", nodePort, " -j ", sp.extChain)
	}
}

// portChainRules writes the rules of the port's own chains: the ClusterIP
// masquerade rule, KUBE-EXT, KUBE-FW, KUBE-SVC, KUBE-SVL and the KUBE-SEPs.
func (r *renderer) portChainRules(sp *servicePort) {
	if sp.hasInternal {
		r.internalMasquerade(sp)
	}
	if sp.usesExt {
		r.externalRules(sp)
	}
	if sp.usesFW {
		r.firewallRules(sp)
	}
	if sp.usesCluster {
		r.serviceToEndpointRules(sp, sp.svcChain, sp.endpoints)
	}
	if sp.usesLocal {
		r.serviceToEndpointRules(sp, sp.localChain(), sp.local)
	}
	for _, ep := range sp.reachable {
		r.endpointRules(sp, ep)
	}
}

// internalMasquerade marks ClusterIP traffic for masquerading: all of it
// with --masquerade-all, else what comes from outside the cluster CIDR
// (kube-proxy's local detector; none without a CIDR).
func (r *renderer) internalMasquerade(sp *servicePort) {
	a, b, c := sp.phrase(` cluster IP"`)
	chain, clusterIP, port := sp.internalChain(), sp.svc.ClusterIP.String(), strconv.Itoa(sp.port.Port)
	switch {
	case r.opts.Flags.MasqueradeAll:
		r.rule("-A ", chain, ` -m comment --comment `, a, b, c, " -m ", sp.proto, " -p ", sp.proto,
			" -d ", clusterIP, " --dport ", port, " -j KUBE-MARK-MASQ")
	case r.cluster.ClusterCIDR.IsValid():
		r.rule("-A ", chain, ` -m comment --comment `, a, b, c, " -m ", sp.proto, " -p ", sp.proto,
			" -d ", clusterIP, " --dport ", port, " ! -s ", r.cluster.ClusterCIDR.String(), " -j KUBE-MARK-MASQ")
	}
}

// externalRules writes KUBE-EXT: masquerade everything (Cluster policy),
// or (Local policy) send pod and host traffic to the Cluster endpoints,
// masquerading the host's; then jump to the policy's chain if it has
// endpoints.
func (r *renderer) externalRules(sp *servicePort) {
	if !sp.externalPolicyLocal {
		r.rule("-A ", sp.extChain, ` -m comment --comment `, sp.quoted("masquerade traffic for ", " external destinations"), ` -j KUBE-MARK-MASQ`)
	} else {
		if r.cluster.ClusterCIDR.IsValid() {
			r.rule("-A ", sp.extChain, ` -m comment --comment `, sp.quoted("pod traffic for ", " external destinations"),
				" -s ", r.cluster.ClusterCIDR.String(), " -j ", sp.svcChain)
		}
		r.rule("-A ", sp.extChain, ` -m comment --comment `, sp.quoted("masquerade LOCAL traffic for ", " external destinations"),
			" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ")
		r.rule("-A ", sp.extChain, ` -m comment --comment `, sp.quoted("route LOCAL traffic for ", " external destinations"),
			" -m addrtype --src-type LOCAL -j ", sp.svcChain)
	}
	if sp.hasExternal {
		r.rule("-A ", sp.extChain, " -j ", sp.externalPolicyChain())
	}
}

// firewallRules writes KUBE-FW: accept each source range (and the
// load-balancer IPs themselves when a range holds the node IP, for
// traffic from the node that loops back), then a rule without a target
// that lets the rest fall to KUBE-PROXY-FIREWALL's drop.
func (r *renderer) firewallRules(sp *servicePort) {
	fw, comment := sp.fwChain(), sp.quoted("", " loadbalancer IP")
	fromNode := false
	for _, p := range sp.sourceRanges {
		r.rule("-A ", fw, " -m comment --comment ", comment, " -s ", p.String(), " -j ", sp.extChain)
		fromNode = fromNode || p.Contains(r.cluster.NodeIP)
	}
	if fromNode {
		for _, ip := range sp.lbIPs {
			r.rule("-A ", fw, " -m comment --comment ", comment, " -s ", ip.String(), " -j ", sp.extChain)
		}
	}
	r.rule("-A ", fw, " -m comment --comment ", sp.quoted("other traffic to ", " will be dropped by KUBE-PROXY-FIREWALL"))
}
