package nftables

// The v1.36+ per-service layout (checked against kube-proxy v1.37.2's
// syncProxyRules, writeServiceToEndpointDNATs and
// writeServiceToEndpointJumps): services without session affinity have no
// endpoint chains, their service chain DNATs directly; hairpin traffic is
// matched by the hairpin-connections set instead of a rule per endpoint.

// firstHairpin reports whether k is new to this transaction, and records it.
func (r *renderer) firstHairpin(k hairpinKey) bool {
	if _, seen := r.hairpins[k]; seen {
		return false
	}
	r.hairpins[k] = struct{}{}
	return true
}

// ensurePortChainsDirect walks the port's endpoints as kube-proxy does
// (an endpoint chain per endpoint only with affinity; a hairpin element per
// local endpoint that addHairpin accepts), then adds the service and
// external chains if the port has endpoints.
func (r *renderer) ensurePortChainsDirect(sp *servicePort, addHairpin func(hairpinKey) bool) {
	for i := range sp.endpoints {
		ep := &sp.endpoints[i]
		if sp.affinity {
			r.chain(ep.chain)
		}
		if ep.local && addHairpin(sp.hairpinKey(ep)) {
			r.w.Line("add element ", table, " ", setHairpin, " { ", ep.ip, " . ", ep.ip, " . ", sp.proto, " . ", ep.port, " }")
			r.w.CountElements(1)
		}
	}
	if !sp.hasEndpoints() {
		return
	}
	r.chain(sp.svcChain)
	if sp.nodePort != "" {
		r.chain(sp.extChain)
	}
}

// hairpinKey is ep's hairpin-connections key.
func (sp *servicePort) hairpinKey(ep *endpoint) hairpinKey {
	return newHairpinKey(ep.addr, sp.proto, ep.portNum)
}

// hairpinElement is the key as knftables writes it (for deletes).
func (sp *servicePort) hairpinElement(ep *endpoint) string {
	return ep.ip + " . " + ep.ip + " . " + sp.proto + " . " + ep.port
}

// writePortRulesDirect writes the rules of the port's external chain, its
// affinity sets, and the DNAT (or, with affinity, the jumps and endpoint
// chains) of its service chain.
func (r *renderer) writePortRulesDirect(sp *servicePort) {
	if !sp.hasEndpoints() {
		return
	}
	if sp.nodePort != "" {
		r.rule(sp.extChain, "mark set mark or "+r.mark+` comment "masquerade"`)
		r.rule(sp.extChain, "goto "+sp.svcChain)
	}
	if !sp.affinity {
		r.writeServiceDNAT(sp)
		return
	}
	for i := range sp.endpoints {
		r.w.Line("add set ", table, " ", sp.endpoints[i].affinity, " { type ipv4_addr ; flags dynamic,timeout ; timeout ", sp.timeout, " ; }")
		r.w.CountSet()
	}
	r.writeServiceToEndpoints(sp)
	for i := range sp.endpoints {
		ep := &sp.endpoints[i]
		r.w.Line("add rule ", table, " ", ep.chain, " update @", ep.affinity, " { ip saddr }")
		r.w.Line("add rule ", table, " ", ep.chain, " meta l4proto ", sp.proto, " dnat to ", ep.hostPort)
		r.w.CountRule()
		r.w.CountRule()
	}
}

// writeServiceDNAT writes the service chain's one rule: `dnat to IP:PORT`
// for a single endpoint, else a numgen-indexed map of IP . port.
func (r *renderer) writeServiceDNAT(sp *servicePort) {
	if len(sp.endpoints) == 1 {
		r.w.Line("add rule ", table, " ", sp.svcChain, " meta l4proto ", sp.proto, " dnat to ", sp.endpoints[0].hostPort)
		r.w.CountRule()
		return
	}
	p := append(r.parts[:0], "add rule ", table, " ", sp.svcChain, " meta l4proto ", sp.proto,
		" dnat ip addr . port to numgen random mod ", r.index(len(sp.endpoints)), " map {")
	for i := range sp.endpoints {
		if i > 0 {
			p = append(p, " ,")
		}
		p = append(p, " ", r.index(i), " : ", sp.endpoints[i].ip, " . ", sp.endpoints[i].port)
	}
	p = append(p, " }")
	r.w.Line(p...)
	r.w.CountRule()
	r.parts = p[:0]
}
