package nftables

import "github.com/svclab/svclab/sim/model"

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

// allHairpins returns the hairpin-connections elements of every service of
// m (none in the v1.35 layout).
func allHairpins(m *model.Model, direct bool) (map[hairpinKey]string, error) {
	keys := map[hairpinKey]string{}
	if !direct {
		return keys, nil
	}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if !s.ClusterIP.IsValid() {
			continue
		}
		sps, err := servicePorts(s, m.Cluster.NodeName, direct)
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
// endpoint chains (in the v1.36+ layout only with affinity), the service
// chain, the external chain.
func (r *renderer) chainsOf(sp *servicePort) []string {
	if !sp.hasEndpoints() {
		return nil
	}
	var out []string
	if r.endpointChains(sp) {
		for _, ep := range sp.endpoints {
			out = append(out, ep.chain)
		}
	}
	out = append(out, sp.svcChain)
	if sp.nodePort != "" {
		out = append(out, sp.extChain)
	}
	return out
}
