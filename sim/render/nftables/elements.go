package nftables

import "github.com/svclab/svclab/sim/model"

// element is one set or map element as a partial sync compares it: its
// container, key, value (empty for a set) and comment.
type element struct{ set, key, value, comment string }

// portElements returns the elements port sp has, in the order kube-proxy
// ensures them: its ClusterIP in cluster-ips; the ClusterIP, external and
// load-balancer IPs in service-ips, or in no-endpoint-services (reject, or
// drop when a Local traffic policy has no local endpoint); the
// load-balancer IPs in firewall-ips; the NodePort in
// localhost-nodeport-reject-ports (when rejects says so), service-nodeports
// and no-endpoint-nodeports. A key may repeat (an IP listed twice).
func portElements(sp *servicePort, rejects func(proto string) bool) []element {
	out := make([]element, 0, 2)
	out = append(out, element{set: setClusterIPs, key: sp.clusterIP})
	if sp.hasInternal() {
		out = append(out, element{set: mapServiceIPs, key: sp.key(), value: "goto " + sp.internalChain()})
	} else {
		out = append(out, element{set: mapNoEPServices, key: sp.key(), value: sp.filterVerdict(sp.hasInternal()), comment: sp.comment})
	}
	extVerdict := sp.filterVerdict(sp.hasExternal())
	for _, ip := range sp.externalIPs {
		if sp.hasAny {
			out = append(out, element{set: mapServiceIPs, key: sp.keyOf(ip), value: "goto " + sp.extChain})
		}
		if !sp.hasExternal() {
			out = append(out, element{set: mapNoEPServices, key: sp.keyOf(ip), value: extVerdict, comment: sp.comment})
		}
	}
	for _, ip := range sp.lbIPs {
		if sp.hasAny {
			out = append(out, element{set: mapServiceIPs, key: sp.keyOf(ip), value: "goto " + sp.extChain})
		}
		if sp.usesFWChain() {
			out = append(out, element{set: mapFirewallIPs, key: sp.keyOf(ip), value: "goto " + sp.fwChain})
		}
	}
	if !sp.hasExternal() {
		for _, ip := range sp.lbIPs {
			out = append(out, element{set: mapNoEPServices, key: sp.keyOf(ip), value: extVerdict, comment: sp.comment})
		}
	}
	if sp.nodePort == "" {
		return out
	}
	if rejects != nil && rejects(sp.proto) {
		out = append(out, element{set: mapLocalhostReject, key: sp.nodePortKey(), value: "goto localhost-nodeport-reject-" + sp.proto})
	}
	if sp.hasAny {
		out = append(out, element{set: mapServiceNodePorts, key: sp.nodePortKey(), value: "goto " + sp.extChain})
	}
	if !sp.hasExternal() {
		out = append(out, element{set: mapNoEPNodePorts, key: sp.nodePortKey(), value: extVerdict, comment: sp.comment})
	}
	return out
}

// writeElement adds e as knftables writes it.
func (r *renderer) writeElement(e element) {
	p := append(r.parts[:0], "add element ", r.table, " ", e.set, " { ", e.key)
	if e.comment != "" {
		p = append(p, ` comment "`, e.comment, `"`)
	}
	if e.value != "" {
		p = append(p, " : ", e.value)
	}
	p = append(p, " }")
	r.w.Line(p...)
	r.w.CountElements(1)
	r.parts = p[:0]
}

// allHairpins returns the hairpin-connections elements of every service of
// m (none in the v1.35 layout).
func allHairpins(m *model.Model, pc portContext) (map[hairpinKey]string, error) {
	keys := map[hairpinKey]string{}
	if !pc.direct {
		return keys, nil
	}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if s.Skipped() {
			continue
		}
		sps, err := servicePorts(s, pc)
		if err != nil {
			return nil, err
		}
		for _, sp := range sps {
			for j := range sp.endpoints {
				if ep := &sp.endpoints[j]; ep.local {
					keys[sp.hairpinKey(ep)] = sp.hairpinElement(ep)
				}
			}
		}
	}
	return keys, nil
}

// chainsOf returns the chains port sp has, in the order they are flushed:
// endpoint chains (in the v1.36+ layout only with affinity), then the
// service, local, external and firewall chains.
func (r *renderer) chainsOf(sp *servicePort) []string {
	var out []string
	if r.endpointChains(sp) {
		for _, ep := range sp.endpoints {
			out = append(out, ep.chain)
		}
	}
	for _, c := range [...]struct {
		name string
		used bool
	}{{sp.svcChain, sp.usesClusterChain()}, {sp.localChain, sp.usesLocalChain()}, {sp.extChain, sp.usesExtChain()}, {sp.fwChain, sp.usesFWChain()}} {
		if c.used {
			out = append(out, c.name)
		}
	}
	return out
}
