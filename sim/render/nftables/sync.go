package nftables

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderSync streams the partial-sync transaction kube-proxy runs when the
// cluster goes from before (what the last sync programmed) to after, with
// services matched by namespace and name: services that did not change are
// skipped (skipServiceUpdate); added and changed ones are written as on a
// full sync, except that set and map elements already in the table are not
// re-added (an element whose value changed is deleted and added again, as
// kube-proxy's nftElementStorage does); the chains of removed and changed
// services that are no longer used are flushed (kube-proxy deletes them in
// a later transaction) and their affinity sets deleted; and elements no
// service uses any more are deleted at the end, in kube-proxy's storage
// order. before must be the state the table holds: a nil before is a full
// sync (Render).
//
// The chains it flushes stay in the table until kube-proxy deletes them
// (Syncer keeps track of them across syncs).
func RenderSync(w io.Writer, before, after *model.Model, opts Options) (render.Stats, error) {
	st, _, err := renderSync(w, before, after, nil, opts)
	return st, err
}

// renderSync is RenderSync; stale are the chains earlier syncs flushed and
// kube-proxy has not deleted yet, which it flushes again unless a service
// uses them again. It returns the chains this transaction flushes.
func renderSync(w io.Writer, before, after *model.Model, stale []string, opts Options) (render.Stats, []string, error) {
	if before == nil {
		st, err := Render(w, after, opts)
		return st, nil, err
	}
	if err := opts.Version.Validate(); err != nil {
		return render.Stats{}, nil, fmt.Errorf("render nftables: %w", err)
	}
	out := render.NewWriter(w)
	r := newRenderer(out, after.Cluster, after.Family, opts)
	st, err := newSyncState(r, before, after)
	if err != nil {
		stats, _ := flushWith(out, err)
		return stats, nil, err
	}
	for i := 0; i < after.Services.Len(); i++ {
		s := after.Services.At(i)
		old, existed := st.prev[nameOf(s)]
		if existed && unchanged(&old, s, after.Family) {
			continue
		}
		if err := st.writeService(s); err != nil {
			stats, _ := flushWith(out, err)
			return stats, nil, err
		}
	}
	flushed := st.finish(stale)
	stats, err := out.Flush()
	return stats, flushed, err
}

// serviceName identifies a service across syncs.
type serviceName struct{ namespace, name string }

func nameOf(s *model.Service) serviceName { return serviceName{s.Namespace, s.Name} }

// syncState is what a partial sync knows of the table before it, and what
// it has used so far.
type syncState struct {
	r *renderer
	// prev holds every service of before, by name.
	prev map[serviceName]model.Service
	// gone are the ports of the services that changed or were removed, as
	// they were: the sources of stale chains, sets and elements.
	gone []*servicePort
	// elems are the elements of the changed and removed services, by
	// container and key, with their values; used marks the ones after
	// still has.
	elems map[elemKey]string
	used  map[elemKey]bool
	// hairpins are the hairpin-connections keys of before and of after
	// (every service: kube-proxy's storage is shared).
	prevHairpins, curHairpins map[hairpinKey]string
	// active are the chains and affinity sets the written services use.
	active map[string]bool
}

// elemKey is one element: its set or map and its key.
type elemKey struct{ set, key string }

func newSyncState(r *renderer, before, after *model.Model) (*syncState, error) {
	st := &syncState{r: r, prev: map[serviceName]model.Service{}, elems: map[elemKey]string{}, used: map[elemKey]bool{},
		active: map[string]bool{}}
	var err error
	pc := r.portContext()
	if st.curHairpins, err = allHairpins(after, pc); err != nil {
		return nil, err
	}
	if st.prevHairpins, err = allHairpins(before, modelContext(before, r.releaseFacts)); err != nil {
		return nil, err
	}
	cur := map[serviceName]*model.Service{}
	for i := 0; i < after.Services.Len(); i++ {
		s := *after.Services.At(i)
		cur[nameOf(&s)] = &s
	}
	for i := 0; i < before.Services.Len(); i++ {
		s := *before.Services.At(i)
		st.prev[nameOf(&s)] = s
		if now, ok := cur[nameOf(&s)]; ok && unchanged(&s, now, after.Family) {
			continue
		}
		if s.Skipped() {
			continue
		}
		sps, err := servicePorts(&s, modelContext(before, r.releaseFacts))
		if err != nil {
			return nil, err
		}
		st.gone = append(st.gone, sps...)
		for _, sp := range sps {
			for _, e := range portElements(sp, r.rejectsLocalhost) {
				st.elems[elemKey{e.set, e.key()}] = e.value()
			}
		}
	}
	return st, nil
}

// writeService writes an added or changed service.
func (st *syncState) writeService(s *model.Service) error {
	if s.Skipped() {
		return nil
	}
	r := st.r
	sps, err := servicePorts(s, r.portContext())
	if err != nil {
		return err
	}
	r.lastClusterIP = ""
	for _, sp := range sps {
		r.ensurePortChains(sp, func(k hairpinKey) bool {
			_, had := st.prevHairpins[k]
			return !had && r.firstHairpin(k)
		})
		for _, e := range portElements(sp, r.rejectsLocalhost) {
			st.ensure(&e)
		}
		r.writePortRules(sp)
		for name, keep := range r.keptNames(sp) {
			if keep {
				st.active[name] = true
			}
		}
	}
	return nil
}

// ensure is kube-proxy's ensureElem against its element storage: the
// elements before the sync, updated as the transaction adds them.
func (st *syncState) ensure(e *element) {
	if e.set == setClusterIPs {
		if e.ip == st.r.lastClusterIP {
			return
		}
		st.r.lastClusterIP = e.ip
	}
	k, v := elemKey{e.set, e.key()}, e.value()
	old, had := st.elems[k]
	st.used[k] = true
	switch {
	case had && old == v:
		return
	case had:
		st.r.deleteElem(e)
	}
	st.elems[k] = v
	st.r.writeElement(e)
}

// finish flushes the stale chains (the changed and removed services'
// chains no longer used, and the earlier syncs' stale chains that are still
// unused), deletes the stale affinity sets and the leftover elements. It
// returns the chains it flushed.
func (st *syncState) finish(stale []string) []string {
	r := st.r
	flushed := map[string]bool{}
	var chains []string
	flush := func(c string) {
		if !st.active[c] && !flushed[c] {
			flushed[c] = true
			chains = append(chains, c)
			r.w.Line("flush chain ", r.table, " ", c)
		}
	}
	for _, sp := range st.gone {
		for _, c := range r.chainsOf(sp) {
			flush(c)
		}
	}
	for _, c := range stale {
		flush(c)
	}
	for _, sp := range st.gone {
		if !sp.affinity {
			continue
		}
		for _, ep := range sp.endpoints {
			if !st.active[ep.affinity] && !flushed[ep.affinity] {
				flushed[ep.affinity] = true
				r.w.Line("delete set ", r.table, " ", ep.affinity)
			}
		}
	}
	for _, set := range []string{setClusterIPs, mapServiceIPs, mapFirewallIPs, mapNoEPServices, mapNoEPNodePorts, mapServiceNodePorts} {
		st.deleteLeftovers(set)
	}
	if r.direct {
		st.deleteHairpins()
		if r.localhostObjects && r.opts.LocalhostNodePortsGate {
			st.deleteLeftovers(mapLocalhostReject)
		}
	}
	return chains
}

// deleteLeftovers deletes the elements of set that the changed and
// removed services had and no service has any more.
func (st *syncState) deleteLeftovers(set string) {
	r := st.r
	for _, sp := range st.gone {
		for _, e := range portElements(sp, r.rejectsLocalhost) {
			if e.set != set {
				continue
			}
			if k := (elemKey{e.set, e.key()}); !st.used[k] {
				st.used[k] = true // once
				r.deleteElem(&e)
			}
		}
	}
}

// deleteHairpins deletes the hairpin elements of the changed and removed
// services that no service has any more.
func (st *syncState) deleteHairpins() {
	done := map[hairpinKey]bool{}
	for _, sp := range st.gone {
		for j := range sp.endpoints {
			ep := &sp.endpoints[j]
			k := sp.hairpinKey(ep)
			if _, kept := st.curHairpins[k]; ep.local && !kept && !done[k] {
				done[k] = true
				st.r.deleteElement(setHairpin, sp.hairpinElement(ep))
			}
		}
	}
}
