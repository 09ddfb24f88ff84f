package nftables

import (
	"strings"

	"github.com/svclab/svclab/sim/model"
)

// element is one set or map element as kube-proxy ensures it: its
// container, key (ip . proto . port, any part empty), value (verb and
// target: "goto" and a chain, or "drop"; empty for a set) and comment.
// Parts are kept apart so that writing one allocates nothing.
type element struct {
	set             string
	ip, proto, port string
	verb, target    string
	comment         string
}

// key returns the key as knftables writes it.
func (e *element) key() string {
	var b strings.Builder
	for _, p := range [...]string{e.ip, e.proto, e.port} {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" . ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// value returns the value as knftables writes it ("" for a set element).
func (e *element) value() string {
	if e.target == "" {
		return e.verb
	}
	return e.verb + " " + e.target
}

func (e *element) sameKey(o *element) bool {
	return e.set == o.set && e.ip == o.ip && e.proto == o.proto && e.port == o.port
}

func (e *element) sameValue(o *element) bool { return e.verb == o.verb && e.target == o.target }

// appendKey appends the key's parts to p.
func (e *element) appendKey(p []string) []string {
	sep := false
	for _, k := range [...]string{e.ip, e.proto, e.port} {
		if k == "" {
			continue
		}
		if sep {
			p = append(p, " . ")
		}
		p = append(p, k)
		sep = true
	}
	return p
}

// The element verdicts.
const (
	verdictGoto = "goto"
	verdictDrop = "drop"
)

// verdict splits a filter verdict ("goto reject-chain" or "drop").
func verdict(v string) (verb, target string) {
	if v == verdictDrop {
		return verdictDrop, ""
	}
	return verdictGoto, strings.TrimPrefix(v, verdictGoto+" ")
}

// portElements returns the elements port sp has, in the order kube-proxy
// ensures them: its ClusterIP in cluster-ips; the ClusterIP, external and
// load-balancer IPs in service-ips, or in no-endpoint-services (reject, or
// drop when a Local traffic policy has no local endpoint); the
// load-balancer IPs in firewall-ips; the NodePort in
// localhost-nodeport-reject-ports (when rejects says so), service-nodeports
// and no-endpoint-nodeports. A key may repeat (an IP listed twice).
func portElements(sp *servicePort, rejects func(proto string) bool) []element {
	return appendPortElements(make([]element, 0, 2), sp, rejects)
}

// appendPortElements appends sp's elements (portElements) to out.
func appendPortElements(out []element, sp *servicePort, rejects func(proto string) bool) []element {
	out = append(out, element{set: setClusterIPs, ip: sp.clusterIP})
	if sp.hasInternal() {
		out = append(out, sp.ipElement(mapServiceIPs, sp.clusterIP, verdictGoto, sp.internalChain(), false))
	} else {
		verb, target := verdict(sp.filterVerdict(sp.hasInternal()))
		out = append(out, sp.ipElement(mapNoEPServices, sp.clusterIP, verb, target, true))
	}
	if !sp.externallyAccessible() {
		return out
	}
	verb, target := verdict(sp.filterVerdict(sp.hasExternal()))
	ext := sp.extChain()
	for _, ip := range sp.externalIPs {
		if sp.hasAny {
			out = append(out, sp.ipElement(mapServiceIPs, ip, verdictGoto, ext, false))
		}
		if !sp.hasExternal() {
			out = append(out, sp.ipElement(mapNoEPServices, ip, verb, target, true))
		}
	}
	for _, ip := range sp.lbIPs {
		if sp.hasAny {
			out = append(out, sp.ipElement(mapServiceIPs, ip, verdictGoto, ext, false))
		}
		if sp.usesFWChain() {
			out = append(out, sp.ipElement(mapFirewallIPs, ip, verdictGoto, sp.fwChain(), false))
		}
	}
	if !sp.hasExternal() {
		for _, ip := range sp.lbIPs {
			out = append(out, sp.ipElement(mapNoEPServices, ip, verb, target, true))
		}
	}
	if sp.nodePort == "" {
		return out
	}
	np := func(set, verb, target string, comment bool) element {
		e := element{set: set, proto: sp.proto, port: sp.nodePort, verb: verb, target: target}
		if comment {
			e.comment = sp.comment
		}
		return e
	}
	if rejects != nil && rejects(sp.proto) {
		out = append(out, np(mapLocalhostReject, verdictGoto, "localhost-nodeport-reject-"+sp.proto, false))
	}
	if sp.hasAny {
		out = append(out, np(mapServiceNodePorts, verdictGoto, ext, false))
	}
	if !sp.hasExternal() {
		out = append(out, np(mapNoEPNodePorts, verb, target, true))
	}
	return out
}

// ipElement is the element of ip . proto . port in set.
func (sp *servicePort) ipElement(set, ip, verb, target string, comment bool) element {
	e := element{set: set, ip: ip, proto: sp.proto, port: sp.port, verb: verb, target: target}
	if comment {
		e.comment = sp.comment
	}
	return e
}

// writeElement adds e as knftables writes it.
func (r *renderer) writeElement(e *element) {
	p := append(r.parts[:0], "add element ", r.table, " ", e.set, " { ")
	p = e.appendKey(p)
	if e.comment != "" {
		p = append(p, ` comment "`, e.comment, `"`)
	}
	if e.verb != "" {
		p = append(p, " : ", e.verb)
		if e.target != "" {
			p = append(p, " ", e.target)
		}
	}
	p = append(p, " }")
	r.w.Line(p...)
	r.w.CountElements(1)
	r.parts = p[:0]
}

// deleteElem deletes e by its key (no value, as knftables writes it).
func (r *renderer) deleteElem(e *element) {
	p := append(r.parts[:0], "delete element ", r.table, " ", e.set, " { ")
	p = e.appendKey(p)
	p = append(p, " }")
	r.w.Line(p...)
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
	if sp.usesClusterChain() {
		out = append(out, sp.svcChain)
	}
	if sp.usesLocalChain() {
		out = append(out, sp.localChain())
	}
	if sp.usesExtChain() {
		out = append(out, sp.extChain())
	}
	if sp.usesFWChain() {
		out = append(out, sp.fwChain())
	}
	return out
}
