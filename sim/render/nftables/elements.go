package nftables

// element is one set or map element as a partial sync compares it: its
// container, key, value (empty for a set) and comment.
type element struct{ set, key, value, comment string }

// portElements returns the elements port sp has, in the order kube-proxy
// ensures them: its ClusterIP, then the service-ips and service-nodeports
// elements, or their no-endpoint-* counterparts.
func portElements(sp *servicePort) []element {
	out := []element{{set: setClusterIPs, key: sp.clusterIP}}
	if sp.hasEndpoints() {
		out = append(out, element{set: mapServiceIPs, key: sp.key(), value: "goto " + sp.svcChain})
		if sp.nodePort != "" {
			out = append(out, element{set: mapServiceNodePorts, key: sp.nodePortKey(), value: "goto " + sp.extChain})
		}
		return out
	}
	out = append(out, element{set: mapNoEPServices, key: sp.key(), value: "goto " + chainReject, comment: sp.portName})
	if sp.nodePort != "" {
		out = append(out, element{set: mapNoEPNodePorts, key: sp.nodePortKey(), value: "goto " + chainReject, comment: sp.portName})
	}
	return out
}

// writeElement adds e as knftables writes it.
func (r *renderer) writeElement(e element) {
	p := append(r.parts[:0], "add element ", table, " ", e.set, " { ", e.key)
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
