package nftables

// writePort writes everything kube-proxy's syncProxyRules adds for one
// service port on a full sync, in its order: chains first (and, in the
// v1.36+ layout, hairpin elements), then map elements, then the rules of
// the port's chains.
func (r *renderer) writePort(sp *servicePort) {
	r.ensurePortChains(sp, r.firstHairpin)
	r.writePortElements(sp)
	r.writePortRules(sp)
}

// ensurePortChains adds and flushes the port's chains as kube-proxy
// ensures them: a chain per reachable endpoint (in the v1.36+ layout only
// with affinity, and a hairpin element per local endpoint that addHairpin
// accepts), then the service-, local-, external- and firewall- chains the
// port uses.
func (r *renderer) ensurePortChains(sp *servicePort, addHairpin func(hairpinKey) bool) {
	named := r.endpointChains(sp)
	for i := range sp.endpoints {
		ep := &sp.endpoints[i]
		if named {
			r.chain(ep.chain)
		}
		if r.direct && ep.local && addHairpin(sp.hairpinKey(ep)) {
			r.w.Line("add element ", r.table, " ", setHairpin, " { ", ep.ip, " . ", ep.ip, " . ", sp.proto, " . ", ep.port, " }")
			r.w.CountElements(1)
		}
	}
	if sp.usesClusterChain() {
		r.chain(sp.svcChain)
	}
	if sp.usesLocalChain() {
		r.chain(sp.localChain())
	}
	if sp.usesExtChain() {
		r.chain(sp.extChain())
	}
	if sp.usesFWChain() {
		r.chain(sp.fwChain())
	}
}

// writePortElements adds the port's elements as kube-proxy's ensureElem
// does within one port: a repeated key is skipped, or deleted and added
// again when its value changed. The ClusterIP goes into cluster-ips once
// per service.
func (r *renderer) writePortElements(sp *servicePort) {
	r.elemBuf = appendPortElements(r.elemBuf[:0], sp, r.rejectsLocalhost)
	for n := range r.elemBuf {
		e := &r.elemBuf[n]
		if e.set == setClusterIPs {
			if e.ip == r.lastClusterIP {
				continue
			}
			r.lastClusterIP = e.ip
		}
		if i := findElement(r.elemBuf[:n], e); i >= 0 {
			if r.elemBuf[i].sameValue(e) {
				continue
			}
			r.deleteElem(e)
		}
		r.writeElement(e)
	}
}

// findElement returns the index of the last element of elems with e's
// container and key, or -1.
func findElement(elems []element, e *element) int {
	for i := len(elems) - 1; i >= 0; i-- {
		if elems[i].sameKey(e) {
			return i
		}
	}
	return -1
}

// writePortRules writes the rules of the port's chains in its layout.
func (r *renderer) writePortRules(sp *servicePort) {
	if !r.direct {
		r.writeInternalMasquerade(sp)
	}
	r.writeExternalRules(sp)
	if sp.usesFWChain() {
		r.rule(sp.fwChain(), r.ipX+" saddr != { "+sp.sourceRanges+" } drop")
	}
	if sp.affinity {
		for i := range sp.endpoints {
			r.w.Line("add set ", r.table, " ", sp.endpoints[i].affinity, " { type ", r.addrType, " ; flags dynamic,timeout ; timeout ", sp.timeout, " ; }")
			r.w.CountSet()
		}
	}
	if r.direct && !sp.affinity {
		if sp.usesClusterChain() {
			r.writeServiceDNAT(sp, sp.svcChain, sp.cluster)
		}
		if sp.usesLocalChain() {
			r.writeServiceDNAT(sp, sp.localChain(), sp.local)
		}
		return
	}
	if sp.usesClusterChain() {
		r.writeServiceToEndpoints(sp, sp.svcChain, sp.cluster)
	}
	if sp.usesLocalChain() {
		r.writeServiceToEndpoints(sp, sp.localChain(), sp.local)
	}
	for i := range sp.endpoints {
		r.writeEndpointChain(sp, &sp.endpoints[i])
	}
}

// writeInternalMasquerade writes v1.35's masquerade rule of the internal
// traffic chain: every packet to the ClusterIP with --masquerade-all, else
// those from outside the cluster CIDR.
func (r *renderer) writeInternalMasquerade(sp *servicePort) {
	if sp.hasInternal() && (r.masqueradeAll() || r.hasLocalDetector()) {
		r.w.Line("add rule ", r.table, " ", sp.internalChain(), " ", r.ipX, " daddr ", sp.clusterIP, " ", r.notLocal, "jump ", chainMarkMasq)
		r.w.CountRule()
	}
}

// writeExternalRules writes the external chain: masquerade and go to the
// service chain (Cluster policy), or short-circuit pod and node traffic to
// the service chain and send the rest to the local chain (Local policy).
func (r *renderer) writeExternalRules(sp *servicePort) {
	if !sp.usesExtChain() {
		return
	}
	masq := "jump " + chainMarkMasq
	if r.direct {
		masq = "mark set mark or " + r.mark
	}
	ext := sp.extChain()
	if !sp.externalLocal {
		if r.direct {
			r.rule(ext, masq+` comment "masquerade"`)
		} else {
			r.rule(ext, masq)
		}
	} else {
		if r.hasLocalDetector() {
			r.rule(ext, r.isLocal+"goto "+sp.svcChain+` comment "short-circuit pod traffic"`)
		}
		r.rule(ext, "fib saddr type local "+masq+` comment "masquerade local traffic"`)
		r.rule(ext, "fib saddr type local goto "+sp.svcChain+` comment "short-circuit local traffic"`)
	}
	if sp.hasExternal() {
		r.rule(ext, "goto "+sp.externalPolicyChain())
	}
}

// writeServiceToEndpoints writes, into chain, the affinity rules and the
// numgen rule that jump to the endpoint chains of eps (indexes of
// sp.endpoints).
func (r *renderer) writeServiceToEndpoints(sp *servicePort, chain string, eps []int) {
	w := r.w
	if sp.affinity {
		for _, i := range eps {
			ep := &sp.endpoints[i]
			w.Line("add rule ", r.table, " ", chain, " ", r.ipX, " saddr @", ep.affinity, " goto ", ep.chain)
			w.CountRule()
		}
	}
	p := append(r.parts[:0], "add rule ", r.table, " ", chain, " numgen random mod ", r.index(len(eps)), " vmap {")
	for n, i := range eps {
		if n > 0 {
			p = append(p, " ,")
		}
		p = append(p, " ", r.index(n), " : goto ", sp.endpoints[i].chain)
	}
	p = append(p, " }")
	w.Line(p...)
	w.CountRule()
	r.parts = p[:0]
}

// writeEndpointChain writes the rules of one endpoint chain: (v1.35) the
// hairpin masquerade, the affinity update, and the DNAT.
func (r *renderer) writeEndpointChain(sp *servicePort, ep *endpoint) {
	w := r.w
	if !r.direct {
		w.Line("add rule ", r.table, " ", ep.chain, " ", r.ipX, " saddr ", ep.ip, " jump ", chainMarkMasq)
		w.CountRule()
	}
	if sp.affinity {
		w.Line("add rule ", r.table, " ", ep.chain, " update @", ep.affinity, " { ", r.ipX, " saddr }")
		w.CountRule()
	}
	w.Line("add rule ", r.table, " ", ep.chain, " meta l4proto ", sp.proto, " dnat to ", ep.hostPort)
	w.CountRule()
}
