package nftables

// The v1.36+ per-service layout (checked against kube-proxy v1.36.3's and
// v1.37.2's
// syncProxyRules, writeServiceToEndpointDNATs and
// writeServiceToEndpointJumps): services without session affinity have no
// endpoint chains, their service (and local) chains DNAT directly; hairpin
// traffic is matched by the hairpin-connections set instead of a rule per
// endpoint.

// firstHairpin reports whether k is new to this transaction, and records it.
func (r *renderer) firstHairpin(k hairpinKey) bool {
	if _, seen := r.hairpins[k]; seen {
		return false
	}
	r.hairpins[k] = struct{}{}
	return true
}

// hairpinKey is ep's hairpin-connections key.
func (sp *servicePort) hairpinKey(ep *endpoint) hairpinKey {
	return newHairpinKey(ep.addr, sp.proto, ep.portNum)
}

// hairpinElement is the key as knftables writes it.
func (sp *servicePort) hairpinElement(ep *endpoint) string {
	return ep.ip + " . " + ep.ip + " . " + sp.proto + " . " + ep.port
}

// writeServiceDNAT writes chain's one rule for the endpoints eps (indexes
// of sp.endpoints): `dnat to IP:PORT` for a single endpoint, else a
// numgen-indexed map of IP . port (also for a single endpoint before
// v1.37: releaseFacts.dnatTo).
func (r *renderer) writeServiceDNAT(sp *servicePort, chain string, eps []int) {
	if len(eps) == 1 && r.dnatTo {
		r.w.Line("add rule ", r.table, " ", chain, " meta l4proto ", sp.proto, " dnat to ", sp.endpoints[eps[0]].hostPort)
		r.w.CountRule()
		return
	}
	p := append(r.parts[:0], "add rule ", r.table, " ", chain, " meta l4proto ", sp.proto,
		" dnat ", r.ipX, " addr . port to numgen random mod ", r.index(len(eps)), " map {")
	for n, i := range eps {
		if n > 0 {
			p = append(p, " ,")
		}
		p = append(p, " ", r.index(n), " : ", sp.endpoints[i].ip, " . ", sp.endpoints[i].port)
	}
	p = append(p, " }")
	r.w.Line(p...)
	r.w.CountRule()
	r.parts = p[:0]
}
