package nftables

// What setupNFTables adds in the NFTablesDirectDNAT layout (v1.36+) and
// with NFTablesLocalhostNodePorts (v1.37+), and not before.

// localhostRejectProtocols are metrics.LocalhostNodePortRejectableProtocols,
// lower-cased, in kube-proxy's order.
var localhostRejectProtocols = []string{"tcp", "udp", "sctp"}

// writeHairpinMasquerading adds the hairpin-connections set and the two
// rules of masquerading: marked packets, and connections DNATed back to
// the endpoint that sent them.
func (r *renderer) writeHairpinMasquerading() {
	a := r.addrType
	r.addSet(setHairpin, "type "+a+" . "+a+` . inet_proto . inet_service ; comment "service hairpin connections" ;`)
	r.rule(chainMasquerading, "mark and "+r.mark+" != 0 mark set mark xor "+r.mark+" masquerade fully-random")
	r.rule(chainMasquerading, "ct status dnat "+r.ipX+" saddr . "+r.ipX+" daddr . meta l4proto . th dport @"+setHairpin+" masquerade fully-random")
}

// localhostRejects returns the protocols whose localhost NodePort traffic
// kube-proxy rejects: none with the KubeProxyNFTablesLocalhostNodePorts
// gate off; with it on, UDP and SCTP when --nodeport-addresses names
// loopback (the userspace proxy serves TCP), else all three.
func (r *renderer) localhostRejects() []string {
	switch {
	case !r.localhostObjects || !r.opts.LocalhostNodePortsGate:
		return nil
	case r.nodePorts.explicitLoopback:
		return localhostRejectProtocols[1:]
	}
	return localhostRejectProtocols
}

// rejectsLocalhost reports whether localhost NodePorts of proto are rejected.
func (r *renderer) rejectsLocalhost(proto string) bool {
	for _, p := range r.localhostRejects() {
		if p == proto {
			return true
		}
	}
	return false
}

// writeLocalhostNodePortRejects writes the localhost-nodeport-reject-*
// objects: the map, and per rejected protocol a counter and a chain that
// counts and rejects, looked up from nodeport-endpoints-check; the objects
// of the other protocols (all of them with the gate off, the default in
// v1.37) are added and deleted again, so the transaction succeeds whether
// or not they exist.
func (r *renderer) writeLocalhostNodePortRejects() {
	w := r.w
	w.Line("add map ", r.table, " ", mapLocalhostReject, ` { type inet_proto . inet_service : verdict ; comment "localhost NodePorts rejected by kube-proxy" ; }`)
	rejects := r.localhostRejects()
	if len(rejects) == 0 {
		w.Line("delete map ", r.table, " ", mapLocalhostReject)
	} else {
		w.CountSet()
		for _, proto := range rejects {
			w.Line("add counter ", r.table, " localhost-nodeport-rejected-", proto)
			r.chain("localhost-nodeport-reject-" + proto)
			r.rule("localhost-nodeport-reject-"+proto, `counter name "localhost-nodeport-rejected-`+proto+`" reject`)
		}
		r.rule(chainNodePortCheck, r.localhost+" meta l4proto . th dport vmap @"+mapLocalhostReject)
	}
	for _, proto := range localhostRejectProtocols {
		if r.rejectsLocalhost(proto) {
			continue
		}
		w.Line("add chain ", r.table, " localhost-nodeport-reject-", proto)
		w.Line("delete chain ", r.table, " localhost-nodeport-reject-", proto)
		w.Line("add counter ", r.table, " localhost-nodeport-rejected-", proto)
		w.Line("delete counter ", r.table, " localhost-nodeport-rejected-", proto)
	}
}

// writeServicesMasquerade writes the one rule in services that marks
// ClusterIP traffic for masquerading: all of it with --masquerade-all,
// else what comes from outside the cluster CIDR.
func (r *renderer) writeServicesMasquerade() {
	switch {
	case r.masqueradeAll():
		r.rule(chainServices, r.ipX+" daddr @"+setClusterIPs+" mark set mark or "+r.mark+` comment "masquerade all clusterIP traffic"`)
	case r.hasLocalDetector():
		r.rule(chainServices, r.ipX+" daddr @"+setClusterIPs+" "+r.notLocal+"mark set mark or "+r.mark+` comment "masquerade clusterIP traffic from outside cluster"`)
	}
}
