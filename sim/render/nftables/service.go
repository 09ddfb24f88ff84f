package nftables

// writePort writes everything kube-proxy's syncProxyRules adds for one
// service port on a full sync, in its order: chains first, then map
// elements, then the rules of the service, external and endpoint chains.
func (r *renderer) writePort(sp *servicePort) {
	if r.direct {
		r.ensurePortChainsDirect(sp, r.firstHairpin)
	} else {
		r.ensurePortChains(sp)
	}
	r.writeClusterIP(sp)
	r.writePortElements(sp)
	if r.direct {
		r.writePortRulesDirect(sp)
	} else {
		r.writePortRules(sp)
	}
}

// writeClusterIP adds the port's ClusterIP to cluster-ips unless the
// previous port of the service already did: kube-proxy's element storage
// adds each key once.
func (r *renderer) writeClusterIP(sp *servicePort) {
	if sp.clusterIP == r.lastClusterIP {
		return
	}
	r.lastClusterIP = sp.clusterIP
	r.element(setClusterIPs, sp.clusterIP)
}

// ensurePortChains adds and flushes the port's endpoint, service and
// external chains; a port without endpoints has none.
func (r *renderer) ensurePortChains(sp *servicePort) {
	if !sp.hasEndpoints() {
		return
	}
	for i := range sp.endpoints {
		r.chain(sp.endpoints[i].chain)
	}
	r.chain(sp.svcChain)
	if sp.nodePort != "" {
		r.chain(sp.extChain)
	}
}

// writePortElements adds the port's service-ips and service-nodeports
// elements, or their no-endpoint-* counterparts (goto reject-chain).
func (r *renderer) writePortElements(sp *servicePort) {
	w := r.w
	if sp.hasEndpoints() {
		w.Line("add element ", table, " ", mapServiceIPs, " { ", sp.clusterIP, " . ", sp.proto, " . ", sp.port, " : goto ", sp.svcChain, " }")
		w.CountElements(1)
		if sp.nodePort != "" {
			w.Line("add element ", table, " ", mapServiceNodePorts, " { ", sp.proto, " . ", sp.nodePort, " : goto ", sp.extChain, " }")
			w.CountElements(1)
		}
		return
	}
	w.Line("add element ", table, " ", mapNoEPServices, " { ", sp.clusterIP, " . ", sp.proto, " . ", sp.port, ` comment "`, sp.portName, `" : goto `, chainReject, " }")
	w.CountElements(1)
	if sp.nodePort != "" {
		w.Line("add element ", table, " ", mapNoEPNodePorts, " { ", sp.proto, " . ", sp.nodePort, ` comment "`, sp.portName, `" : goto `, chainReject, " }")
		w.CountElements(1)
	}
}

// writePortRules writes the rules of the port's chains and its affinity sets.
func (r *renderer) writePortRules(sp *servicePort) {
	if !sp.hasEndpoints() {
		return
	}
	w := r.w
	if r.opts.MasqueradeAll || r.hasLocalDetector() {
		w.Line("add rule ", table, " ", sp.svcChain, " ip daddr ", sp.clusterIP, " ", r.notLocal, "jump ", chainMarkMasq)
		w.CountRule()
	}
	if sp.nodePort != "" {
		w.Line("add rule ", table, " ", sp.extChain, " jump ", chainMarkMasq)
		w.Line("add rule ", table, " ", sp.extChain, " goto ", sp.svcChain)
		w.CountRule()
		w.CountRule()
	}
	if sp.affinity {
		for i := range sp.endpoints {
			w.Line("add set ", table, " ", sp.endpoints[i].affinity, " { type ipv4_addr ; flags dynamic,timeout ; timeout ", sp.timeout, " ; }")
			w.CountSet()
		}
	}
	r.writeServiceToEndpoints(sp)
	for i := range sp.endpoints {
		r.writeEndpointChain(sp, &sp.endpoints[i])
	}
}

// writeServiceToEndpoints writes the affinity rules and the numgen
// load-balancing rule of the service chain.
func (r *renderer) writeServiceToEndpoints(sp *servicePort) {
	w := r.w
	if sp.affinity {
		for i := range sp.endpoints {
			ep := &sp.endpoints[i]
			w.Line("add rule ", table, " ", sp.svcChain, " ip saddr @", ep.affinity, " goto ", ep.chain)
			w.CountRule()
		}
	}
	p := append(r.parts[:0], "add rule ", table, " ", sp.svcChain, " numgen random mod ", r.index(len(sp.endpoints)), " vmap {")
	for i := range sp.endpoints {
		if i > 0 {
			p = append(p, " ,")
		}
		p = append(p, " ", r.index(i), " : goto ", sp.endpoints[i].chain)
	}
	p = append(p, " }")
	w.Line(p...)
	w.CountRule()
	r.parts = p[:0]
}

// writeEndpointChain writes the hairpin masquerade, affinity update and
// DNAT rules of one endpoint chain.
func (r *renderer) writeEndpointChain(sp *servicePort, ep *endpoint) {
	w := r.w
	w.Line("add rule ", table, " ", ep.chain, " ip saddr ", ep.ip, " jump ", chainMarkMasq)
	w.CountRule()
	if sp.affinity {
		w.Line("add rule ", table, " ", ep.chain, " update @", ep.affinity, " { ip saddr }")
		w.CountRule()
	}
	w.Line("add rule ", table, " ", ep.chain, " meta l4proto ", sp.proto, " dnat to ", ep.hostPort)
	w.CountRule()
}
