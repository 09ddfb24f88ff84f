package nftables

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderIncremental streams to w the transaction of kube-proxy's partial
// sync after newEndpoint is added to service m.Services.At(serviceIndex)
// (m is the state before the change). Only that service is written: every
// port's endpoint, service and external chains are re-added and flushed and
// their rules rewritten, affinity sets re-added, and map elements changed
// only where the service goes from no endpoints to some. Every other
// service is skipped, as kube-proxy's skipServiceUpdate does.
func RenderIncremental(w io.Writer, m *model.Model, serviceIndex int, newEndpoint model.Endpoint, opts Options) (render.Stats, error) {
	if serviceIndex < 0 || serviceIndex >= m.Services.Len() {
		return render.Stats{}, fmt.Errorf("render nftables incremental sync: service index %d out of range [0,%d)", serviceIndex, m.Services.Len())
	}
	before := *m.Services.At(serviceIndex)
	after := before
	after.Endpoints = append(append([]model.Endpoint(nil), before.Endpoints...), newEndpoint)
	return RenderServiceChange(w, m.Cluster, &before, &after, opts)
}

// RenderServiceChange streams the partial-sync transaction kube-proxy runs
// when service before becomes after (same name and ports; endpoints or
// affinity may differ) and nothing else changed.
func RenderServiceChange(w io.Writer, c model.Cluster, before, after *model.Service, opts Options) (render.Stats, error) {
	out := render.NewWriter(w)
	r := newRenderer(out, c, opts)
	old, err := servicePorts(before)
	if err != nil {
		return flushWith(out, err)
	}
	cur, err := servicePorts(after)
	if err != nil {
		return flushWith(out, err)
	}
	if len(old) != len(cur) {
		return flushWith(out, fmt.Errorf("render nftables service change %s/%s: ports changed (%d → %d)", after.Namespace, after.Name, len(old), len(cur)))
	}
	var leftovers elementDeletes
	for i, sp := range cur {
		r.ensurePortChains(sp)
		r.writeElementChanges(old[i], sp, &leftovers)
		r.writePortRules(sp)
	}
	for i, sp := range cur {
		r.flushStaleChains(old[i], sp)
	}
	for i, sp := range cur {
		r.deleteStaleAffinitySets(old[i], sp)
	}
	leftovers.write(r)
	return out.Flush()
}

// elementDeletes collects the map elements a transaction deletes, grouped
// in the order kube-proxy cleans up its element storages.
type elementDeletes struct {
	serviceIPs, noEPServices, noEPNodePorts, serviceNodePorts []string
}

func (d *elementDeletes) write(r *renderer) {
	for _, k := range d.serviceIPs {
		r.deleteElement(mapServiceIPs, k)
	}
	for _, k := range d.noEPServices {
		r.deleteElement(mapNoEPServices, k)
	}
	for _, k := range d.noEPNodePorts {
		r.deleteElement(mapNoEPNodePorts, k)
	}
	for _, k := range d.serviceNodePorts {
		r.deleteElement(mapServiceNodePorts, k)
	}
}

// servicePorts names every port of s.
func servicePorts(s *model.Service) ([]*servicePort, error) {
	var out []*servicePort
	for _, p := range s.Ports {
		sp, err := newServicePort(s, p)
		if err != nil {
			return nil, fmt.Errorf("render nftables service %s/%s: %w", s.Namespace, s.Name, err)
		}
		out = append(out, sp)
	}
	return out, nil
}

// writeElementChanges adds the elements a port gains when it moves between
// "no endpoints" and "has endpoints" (kube-proxy's ensureElem) and records
// the ones it loses, which kube-proxy deletes at the end of the transaction
// (cleanupLeftoverKeys).
func (r *renderer) writeElementChanges(old, cur *servicePort, dels *elementDeletes) {
	if old.hasEndpoints() == cur.hasEndpoints() {
		return
	}
	r.writePortElements(cur)
	if old.hasEndpoints() {
		dels.serviceIPs = append(dels.serviceIPs, old.key())
		if old.nodePort != "" {
			dels.serviceNodePorts = append(dels.serviceNodePorts, old.nodePortKey())
		}
		return
	}
	dels.noEPServices = append(dels.noEPServices, old.key())
	if old.nodePort != "" {
		dels.noEPNodePorts = append(dels.noEPNodePorts, old.nodePortKey())
	}
}

// keptNames returns the chains and affinity sets cur still uses.
func keptNames(cur *servicePort) map[string]bool {
	keep := map[string]bool{}
	for _, ep := range cur.endpoints {
		keep[ep.chain] = true
		if cur.affinity {
			keep[ep.affinity] = true
		}
	}
	if cur.hasEndpoints() {
		keep[cur.svcChain], keep[cur.extChain] = true, cur.nodePort != ""
	}
	return keep
}

// flushStaleChains flushes chains that old had and cur no longer has;
// kube-proxy deletes them a second later, in another transaction.
func (r *renderer) flushStaleChains(old, cur *servicePort) {
	keep := keptNames(cur)
	for _, ep := range old.endpoints {
		if !keep[ep.chain] {
			r.w.Line("flush chain ", table, " ", ep.chain)
		}
	}
	if old.hasEndpoints() && !keep[old.svcChain] {
		r.w.Line("flush chain ", table, " ", old.svcChain)
	}
	if old.hasEndpoints() && old.nodePort != "" && !keep[old.extChain] {
		r.w.Line("flush chain ", table, " ", old.extChain)
	}
}

// deleteStaleAffinitySets deletes the affinity sets cur no longer uses.
func (r *renderer) deleteStaleAffinitySets(old, cur *servicePort) {
	if !old.affinity {
		return
	}
	keep := keptNames(cur)
	for _, ep := range old.endpoints {
		if !keep[ep.affinity] {
			r.w.Line("delete set ", table, " ", ep.affinity)
		}
	}
}
