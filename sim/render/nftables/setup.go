package nftables

// Fixed object names of kube-proxy's table (pkg/proxy/nftables/proxier.go).
const (
	chainServices       = "services"
	chainMarkMasq       = "mark-for-masquerade"
	chainMasquerading   = "masquerading"
	chainClusterIPs     = "cluster-ips-check"
	chainReject         = "reject-chain"
	chainSvcEPCheck     = "service-endpoints-check"
	chainNodePortCheck  = "nodeport-endpoints-check"
	chainFirewallCheck  = "firewall-check"
	setClusterIPs       = "cluster-ips"
	setNodePortIPs      = "nodeport-ips"
	mapServiceIPs       = "service-ips"
	mapServiceNodePorts = "service-nodeports"
	mapNoEPServices     = "no-endpoint-services"
	mapNoEPNodePorts    = "no-endpoint-nodeports"
	mapFirewallIPs      = "firewall-ips"
	setHairpin          = "hairpin-connections"
	mapLocalhostReject  = "localhost-nodeport-reject-ports"
)

// baseChain is one of kube-proxy's "${type}-${hook}" base chains. The
// priority is written as a number, as knftables does (dstnat = -100).
type baseChain struct{ name, typ, hook, priority string }

var baseChains = []baseChain{
	{"filter-prerouting-pre-dnat", "filter", "prerouting", "-110"},
	{"filter-output-pre-dnat", "filter", "output", "-110"},
	{"filter-input", "filter", "input", "0"},
	{"filter-forward", "filter", "forward", "0"},
	{"filter-output", "filter", "output", "0"},
	{"nat-prerouting", "nat", "prerouting", "-100"},
	{"nat-output", "nat", "output", "-100"},
	{"nat-postrouting", "nat", "postrouting", "100"},
}

// jumpChain is a regular chain jumped to from a base chain.
type jumpChain struct{ dst, src, match string }

var jumpChains = []jumpChain{
	{chainNodePortCheck, "filter-input", "ct state new "},
	{chainSvcEPCheck, "filter-input", "ct state new "},
	{chainSvcEPCheck, "filter-forward", "ct state new "},
	{chainSvcEPCheck, "filter-output", "ct state new "},
	{chainFirewallCheck, "filter-prerouting-pre-dnat", "ct state new "},
	{chainFirewallCheck, "filter-output-pre-dnat", "ct state new "},
	{chainServices, "nat-output", ""},
	{chainServices, "nat-prerouting", ""},
	{chainMasquerading, "nat-postrouting", ""},
	{chainClusterIPs, "filter-forward", "ct state new "},
	{chainClusterIPs, "filter-output", "ct state new "},
}

// writeSetup writes what kube-proxy's setupNFTables adds on a full sync.
func (r *renderer) writeSetup() {
	w := r.w
	w.Line("add table ", r.table, ` { comment "rules for kube-proxy" ; }`)
	if !r.opts.SkipBaseChainReset {
		for _, bc := range baseChains {
			w.Line("add chain ", r.table, " ", bc.name)
			w.Line("delete chain ", r.table, " ", bc.name)
		}
	}
	for _, bc := range baseChains {
		w.Line("add chain ", r.table, " ", bc.name, " { type ", bc.typ, " hook ", bc.hook, " priority ", bc.priority, " ; }")
		w.Line("flush chain ", r.table, " ", bc.name)
		w.CountChain()
	}
	created := map[string]bool{}
	ensure := func(name string) {
		if !created[name] {
			created[name] = true
			r.chain(name)
		}
	}
	for _, jc := range jumpChains {
		ensure(jc.dst)
		r.rule(jc.src, jc.match+"jump "+jc.dst)
	}
	for _, c := range []string{chainServices, chainClusterIPs, chainMasquerading} {
		ensure(c)
	}
	if r.direct {
		r.writeHairpinMasquerading()
	} else {
		ensure(chainMarkMasq)
		r.writeMasquerading()
	}
	r.writeClusterIPsCheck()
	r.writeNodePortIPs()
	r.writeNoEndpoints()
	if r.localhostObjects {
		r.writeLocalhostNodePortRejects()
	}
	r.writeDispatch()
	if r.opts.FlushContainers {
		r.flushContainers()
	}
}

// flushContainers flushes the element containers in kube-proxy's
// readOrReset order.
func (r *renderer) flushContainers() {
	containers := []string{"set " + setClusterIPs, "map " + mapServiceIPs, "map " + mapFirewallIPs,
		"map " + mapNoEPServices, "map " + mapNoEPNodePorts, "map " + mapServiceNodePorts}
	if r.direct {
		containers = append(containers, "set "+setHairpin)
		if r.localhostObjects && r.opts.LocalhostNodePortsGate {
			containers = append(containers, "map "+mapLocalhostReject)
		}
	}
	for _, c := range containers {
		r.w.Line("flush ", c[:3], " ", r.table, " ", c[4:])
	}
}

// writeMasquerading writes mark-for-masquerade and masquerading.
func (r *renderer) writeMasquerading() {
	mark := r.mark
	r.rule(chainMarkMasq, "mark set mark or "+mark)
	r.rule(chainMasquerading, "mark and "+mark+" == 0 return")
	r.rule(chainMasquerading, "mark set mark xor "+mark)
	r.rule(chainMasquerading, "masquerade fully-random")
}

// writeClusterIPsCheck writes the cluster-ips set and the rules that reject
// unknown ports of ClusterIPs and drop unallocated ClusterIPs.
func (r *renderer) writeClusterIPsCheck() {
	r.addSet(setClusterIPs, "type "+r.addrType+` ; comment "Active ClusterIPs" ;`)
	r.rule(chainClusterIPs, r.ipX+` daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"`)
	if r.cluster.ServiceCIDR.IsValid() {
		r.rule(chainClusterIPs, r.ipX+" daddr { "+r.cluster.ServiceCIDR.Masked().String()+` } drop comment "Drop traffic to unallocated ClusterIPs"`)
	}
}

// writeNodePortIPs adds the nodeport-ips set, then deletes it again (every
// local address accepts NodePorts) or fills it.
func (r *renderer) writeNodePortIPs() {
	r.w.Line("add set ", r.table, " ", setNodePortIPs, " { type ", r.addrType, ` ; comment "IPs that accept NodePort traffic" ; }`)
	if r.nodePorts.matchAll {
		r.w.Line("delete set ", r.table, " ", setNodePortIPs)
		return
	}
	r.w.CountSet()
	r.w.Line("flush set ", r.table, " ", setNodePortIPs)
	for _, ip := range r.nodePorts.ips {
		r.element(setNodePortIPs, ip.String())
	}
}

// writeNoEndpoints writes the no-endpoint maps, reject-chain and the rules
// that look the maps up.
func (r *renderer) writeNoEndpoints() {
	r.addMap(mapNoEPServices, "type "+r.addrType+` . inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to services with no endpoints" ;`)
	r.addMap(mapNoEPNodePorts, `type inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to service nodeports with no endpoints" ;`)
	r.w.Line("add chain ", r.table, " ", chainReject, ` { comment "helper for @no-endpoint-services / @no-endpoint-nodeports" ; }`)
	r.w.Line("flush chain ", r.table, " ", chainReject)
	r.w.CountChain()
	r.rule(chainReject, "reject")
	r.rule(chainSvcEPCheck, r.vmapKey()+mapNoEPServices)
	r.rule(chainNodePortCheck, r.nodePortMatch+"meta l4proto . th dport vmap @"+mapNoEPNodePorts)
}

// writeDispatch writes the firewall and service dispatch maps and rules.
func (r *renderer) writeDispatch() {
	r.addMap(mapFirewallIPs, "type "+r.addrType+` . inet_proto . inet_service : verdict ; comment "destinations that are subject to LoadBalancerSourceRanges" ;`)
	r.rule(chainFirewallCheck, r.vmapKey()+mapFirewallIPs)
	r.addMap(mapServiceIPs, "type "+r.addrType+` . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ;`)
	r.addMap(mapServiceNodePorts, `type inet_proto . inet_service : verdict ; comment "NodePort traffic" ;`)
	if r.direct {
		r.writeServicesMasquerade()
	}
	r.rule(chainServices, r.vmapKey()+mapServiceIPs)
	nodePorts := r.nodePortMatch
	if r.nodePorts.matchAll {
		nodePorts = "fib daddr type local " + nodePorts
	}
	r.rule(chainServices, nodePorts+"meta l4proto . th dport vmap @"+mapServiceNodePorts)
}
