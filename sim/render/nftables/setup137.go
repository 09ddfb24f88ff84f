package nftables

// What setupNFTables adds in kube-proxy v1.36+ (checked against v1.37.2)
// and not before.

// localhostRejectProtocols are metrics.LocalhostNodePortRejectableProtocols,
// lower-cased, in kube-proxy's order.
var localhostRejectProtocols = []string{"tcp", "udp", "sctp"}

// writeHairpinMasquerading adds the hairpin-connections set and the two
// rules of masquerading: marked packets, and connections DNATed back to
// the endpoint that sent them.
func (r *renderer) writeHairpinMasquerading() {
	r.addSet(setHairpin, `type ipv4_addr . ipv4_addr . inet_proto . inet_service ; comment "service hairpin connections" ;`)
	r.rule(chainMasquerading, "mark and "+r.mark+" != 0 mark set mark xor "+r.mark+" masquerade fully-random")
	r.rule(chainMasquerading, "ct status dnat ip saddr . ip daddr . meta l4proto . th dport @"+setHairpin+" masquerade fully-random")
}

// writeLocalhostNodePortRejects writes the localhost-nodeport-reject-*
// objects as kube-proxy does with its KubeProxyNFTablesLocalhostNodePorts
// feature gate off (the default in v1.37): each is added and deleted again,
// so the transaction succeeds whether or not they exist.
func (r *renderer) writeLocalhostNodePortRejects() {
	w := r.w
	w.Line("add map ", table, " ", mapLocalhostReject, ` { type inet_proto . inet_service : verdict ; comment "localhost NodePorts rejected by kube-proxy" ; }`)
	w.Line("delete map ", table, " ", mapLocalhostReject)
	for _, proto := range localhostRejectProtocols {
		w.Line("add chain ", table, " localhost-nodeport-reject-", proto)
		w.Line("delete chain ", table, " localhost-nodeport-reject-", proto)
		w.Line("add counter ", table, " localhost-nodeport-rejected-", proto)
		w.Line("delete counter ", table, " localhost-nodeport-rejected-", proto)
	}
}

// writeServicesMasquerade writes the one rule in services that marks
// ClusterIP traffic for masquerading: all of it with --masquerade-all,
// else what comes from outside the cluster CIDR.
func (r *renderer) writeServicesMasquerade() {
	switch {
	case r.opts.MasqueradeAll:
		r.rule(chainServices, "ip daddr @"+setClusterIPs+" mark set mark or "+r.mark+` comment "masquerade all clusterIP traffic"`)
	case r.hasLocalDetector():
		r.rule(chainServices, "ip daddr @"+setClusterIPs+" "+r.notLocal+"mark set mark or "+r.mark+` comment "masquerade clusterIP traffic from outside cluster"`)
	}
}
