package nftables

import (
	"fmt"
	"io"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderIncremental streams to w the transaction of kube-proxy's partial
// sync after newEndpoint is added to service m.Services.At(serviceIndex)
// (m is the state before the change). Only that service is written: every
// port's chains are re-added and flushed and their rules rewritten,
// affinity sets re-added, and set and map elements changed only where they
// change (a port going from no endpoints to some; in the v1.36+ layout a
// new hairpin-connections element when the endpoint is local and no other
// service has the same one). Every other service is skipped, as
// kube-proxy's skipServiceUpdate does.
func RenderIncremental(w io.Writer, m *model.Model, serviceIndex int, newEndpoint model.Endpoint, opts Options) (render.Stats, error) {
	if serviceIndex < 0 || serviceIndex >= m.Services.Len() {
		return render.Stats{}, fmt.Errorf("render nftables incremental sync: service index %d out of range [0,%d)", serviceIndex, m.Services.Len())
	}
	before := *m.Services.At(serviceIndex)
	after := before
	after.Endpoints = append(append([]model.Endpoint(nil), before.Endpoints...), newEndpoint)
	inUse := func(k hairpinKey) bool { return hairpinUsedElsewhere(m, serviceIndex, k) }
	return renderServiceChange(w, m, &before, &after, opts, inUse)
}

// RenderServiceChange streams the partial-sync transaction kube-proxy runs
// when service before becomes after (same name and ports; endpoints or
// affinity may differ) and nothing else changed. It assumes no other
// service shares a hairpin-connections element with this one (RenderIncremental
// checks the model).
func RenderServiceChange(w io.Writer, c model.Cluster, before, after *model.Service, opts Options) (render.Stats, error) {
	m := &model.Model{Cluster: c, Family: model.FamilyOf(after.ClusterIP)}
	return renderServiceChange(w, m, before, after, opts, func(hairpinKey) bool { return false })
}

// renderServiceChange is RenderServiceChange; inUse reports whether another
// service has hairpin element k.
func renderServiceChange(w io.Writer, m *model.Model, before, after *model.Service, opts Options, inUse func(hairpinKey) bool) (render.Stats, error) {
	if err := opts.Version.Validate(); err != nil {
		return render.Stats{}, fmt.Errorf("render nftables: %w", err)
	}
	out := render.NewWriter(w)
	r := newRenderer(out, m.Cluster, m.Family, opts)
	old, err := servicePorts(before, r.portContext())
	if err != nil {
		return flushWith(out, err)
	}
	cur, err := servicePorts(after, r.portContext())
	if err != nil {
		return flushWith(out, err)
	}
	if len(old) != len(cur) {
		return flushWith(out, fmt.Errorf("render nftables service change %s/%s: ports changed (%d → %d)", after.Namespace, after.Name, len(old), len(cur)))
	}
	oldHairpins, curHairpins := hairpinsOf(old), hairpinsOf(cur)
	leftovers := elementDeletes{}
	for i, sp := range cur {
		r.ensurePortChains(sp, func(k hairpinKey) bool {
			_, had := oldHairpins[k]
			return !had && !inUse(k) && r.firstHairpin(k)
		})
		r.writeElementChanges(old[i], sp, leftovers)
		r.writePortRules(sp)
	}
	for i, sp := range cur {
		r.flushStaleChains(old[i], sp)
	}
	for i, sp := range cur {
		r.deleteStaleAffinitySets(old[i], sp)
	}
	if r.direct {
		leftovers.hairpinLeftovers(old, curHairpins, inUse)
	}
	leftovers.write(r)
	return out.Flush()
}

// hairpinUsedElsewhere reports whether a service of m other than skip has
// hairpin element k (a local usable endpoint with that IP, protocol and
// port). It walks the model only for local endpoints' keys.
func hairpinUsedElsewhere(m *model.Model, skip int, k hairpinKey) bool {
	pc := modelContext(m, releaseFacts{direct: true})
	for i := 0; i < m.Services.Len(); i++ {
		if i == skip {
			continue
		}
		s := m.Services.At(i)
		if s.Skipped() || !hasEndpointIP(s, k.ip()) {
			continue
		}
		sps, err := servicePorts(s, pc)
		if err != nil {
			continue // the service cannot be rendered: it has no elements
		}
		for _, sp := range sps {
			for j := range sp.endpoints {
				if ep := &sp.endpoints[j]; ep.local && sp.hairpinKey(ep) == k {
					return true
				}
			}
		}
	}
	return false
}

func hasEndpointIP(s *model.Service, ip netip.Addr) bool {
	for _, e := range s.Endpoints {
		if e.IP == ip {
			return true
		}
	}
	return false
}

// hairpinsOf returns the hairpin keys of the ports' local endpoints.
func hairpinsOf(sps []*servicePort) map[hairpinKey]struct{} {
	keys := map[hairpinKey]struct{}{}
	for _, sp := range sps {
		for i := range sp.endpoints {
			if sp.endpoints[i].local {
				keys[sp.hairpinKey(&sp.endpoints[i])] = struct{}{}
			}
		}
	}
	return keys
}

// elementDeletes collects, by container, the element keys a transaction
// deletes at its end (kube-proxy's cleanupLeftoverKeys).
type elementDeletes map[string][]string

// leftoverOrder is the order kube-proxy cleans up its element storages.
var leftoverOrder = []string{setClusterIPs, mapServiceIPs, mapFirewallIPs, mapNoEPServices, mapNoEPNodePorts, mapServiceNodePorts, setHairpin, mapLocalhostReject}

// hairpinLeftovers records old's hairpin elements that neither cur nor
// another service still has.
func (d elementDeletes) hairpinLeftovers(old []*servicePort, cur map[hairpinKey]struct{}, inUse func(hairpinKey) bool) {
	done := map[hairpinKey]bool{}
	for _, sp := range old {
		for i := range sp.endpoints {
			ep := &sp.endpoints[i]
			k := sp.hairpinKey(ep)
			if _, kept := cur[k]; !ep.local || kept || done[k] || inUse(k) {
				continue
			}
			done[k] = true
			d[setHairpin] = append(d[setHairpin], sp.hairpinElement(ep))
		}
	}
}

func (d elementDeletes) write(r *renderer) {
	for _, set := range leftoverOrder {
		for _, k := range d[set] {
			r.deleteElement(set, k)
		}
	}
}

// modelContext is the port context of m's cluster and family.
func modelContext(m *model.Model, f releaseFacts) portContext {
	c := m.Cluster
	return portContext{node: c.NodeName, zone: c.NodeZone, nodeIP: c.NodeIP, family: m.Family, releaseFacts: f}
}

// servicePorts names every port of s.
func servicePorts(s *model.Service, pc portContext) ([]*servicePort, error) {
	var out []*servicePort
	for _, p := range s.Ports {
		sp, err := newServicePort(s, p, pc)
		if err != nil {
			return nil, fmt.Errorf("render nftables service %s/%s: %w", s.Namespace, s.Name, err)
		}
		out = append(out, sp)
	}
	return out, nil
}

// writeElementChanges ensures cur's elements against old's (kube-proxy's
// ensureElem: a new key is added, a changed value deleted and added
// again) and records old's keys cur no longer has, which kube-proxy
// deletes at the end of the transaction (cleanupLeftoverKeys).
func (r *renderer) writeElementChanges(old, cur *servicePort, dels elementDeletes) {
	before := portElements(old, r.rejectsLocalhost)
	after := portElements(cur, r.rejectsLocalhost)
	for n := range after {
		e := &after[n]
		i := findElement(before, e)
		switch {
		case i >= 0 && before[i].sameValue(e):
			continue
		case i >= 0:
			r.deleteElem(e)
		}
		r.writeElement(e)
		if i >= 0 {
			before[i] = *e
		} else {
			before = append(before, *e)
		}
	}
	for _, e := range portElements(old, r.rejectsLocalhost) {
		if findElement(after, &e) < 0 && !containsString(dels[e.set], e.key()) {
			dels[e.set] = append(dels[e.set], e.key())
		}
	}
}

func containsString(in []string, s string) bool {
	for _, v := range in {
		if v == s {
			return true
		}
	}
	return false
}

// endpointChains reports whether sp's endpoints have chains: always in
// the v1.35 layout, only with affinity in the v1.36+ one.
func (r *renderer) endpointChains(sp *servicePort) bool { return !r.direct || sp.affinity }

// keptNames returns the chains and affinity sets cur uses (true) or
// names without using (false).
func (r *renderer) keptNames(cur *servicePort) map[string]bool {
	keep := map[string]bool{}
	for _, ep := range cur.endpoints {
		keep[ep.chain] = r.endpointChains(cur)
		if cur.affinity {
			keep[ep.affinity] = true
		}
	}
	for _, c := range r.chainsOf(cur) {
		keep[c] = true
	}
	return keep
}

// flushStaleChains flushes chains that old had and cur no longer has;
// kube-proxy deletes them a second later, in another transaction.
func (r *renderer) flushStaleChains(old, cur *servicePort) {
	keep := r.keptNames(cur)
	for _, c := range r.chainsOf(old) {
		if !keep[c] {
			r.w.Line("flush chain ", r.table, " ", c)
		}
	}
}

// deleteStaleAffinitySets deletes the affinity sets cur no longer uses.
func (r *renderer) deleteStaleAffinitySets(old, cur *servicePort) {
	if !old.affinity {
		return
	}
	keep := r.keptNames(cur)
	for _, ep := range old.endpoints {
		if !keep[ep.affinity] {
			r.w.Line("delete set ", r.table, " ", ep.affinity)
		}
	}
}
