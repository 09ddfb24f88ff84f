package iptables

import (
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Syncer renders kube-proxy's successive iptables-restore payloads for a
// sequence of cluster states. It keeps the state last written, so each
// partial sync rewrites the chains of exactly the services that changed
// (matched by namespace and name) and deletes the chains of the changed
// and removed ones that are no longer used, as RenderPartial describes.
//
// In large-cluster mode kube-proxy looks for stale chains (an
// iptables-save) at most once per syncPeriod: a sync in large-cluster mode
// deletes them only if SyncPeriodElapsed was called since the last sync
// that deleted stale chains; until then they stay pending.
type Syncer struct {
	opts    Options
	prev    *model.Model
	pending []model.Service // services whose stale chains are not deleted yet
	due     bool            // a syncPeriod has passed since the last cleanup
}

// NewSyncer returns a Syncer whose first Sync is a full sync.
func NewSyncer(opts Options) *Syncer { return &Syncer{opts: opts, due: true} }

// SyncPeriodElapsed records that kube-proxy's syncPeriod has passed since
// the last stale-chain cleanup: the next sync cleans up even in
// large-cluster mode.
func (s *Syncer) SyncPeriodElapsed() { s.due = true }

// Sync writes the payload that brings the tables to m: a full sync the
// first time, a partial sync after. m must not change afterwards.
func (s *Syncer) Sync(w io.Writer, m *model.Model) (render.Stats, error) {
	return s.sync(w, m, s.prev == nil)
}

// FullSync writes a full sync to m (kube-proxy's periodic or forced
// resync), which still deletes the stale chains of the services that
// changed or went away since the last sync.
func (s *Syncer) FullSync(w io.Writer, m *model.Model) (render.Stats, error) {
	return s.sync(w, m, true)
}

func (s *Syncer) sync(w io.Writer, m *model.Model, full bool) (render.Stats, error) {
	changed, previous := diffServices(s.prev, m, m.Family)
	updated := func(i int) bool { return changed[i] }
	if full {
		updated = nil
	}
	previous = append(s.pending, previous...)
	cleanup := s.due || model.TotalEndpoints(m.Services) <= s.opts.LargeClusterThreshold
	stale := previous
	if !cleanup {
		stale = nil
	}
	st, err := RenderPartial(w, m, s.opts, updated, stale...)
	if err != nil {
		return st, err
	}
	s.prev = m
	if cleanup {
		s.pending, s.due = nil, false
	} else {
		s.pending = previous
	}
	return st, nil
}

// diffServices returns which services of after differ from their namesake
// in before (or are new) for family f's proxier (sameForKubeProxy), and the
// before versions of the services that changed or were removed.
func diffServices(before, after *model.Model, f model.Family) (map[int]bool, []model.Service) {
	prev := map[serviceName]model.Service{}
	var order []serviceName
	if before != nil {
		for i := 0; i < before.Services.Len(); i++ {
			s := *before.Services.At(i)
			n := serviceName{s.Namespace, s.Name}
			prev[n] = s
			order = append(order, n)
		}
	}
	changed := map[int]bool{}
	seen := map[serviceName]bool{}
	var previous []model.Service
	for i := 0; i < after.Services.Len(); i++ {
		s := after.Services.At(i)
		n := serviceName{s.Namespace, s.Name}
		seen[n] = true
		old, ok := prev[n]
		if !ok || !sameForKubeProxy(&old, s, f) {
			changed[i] = true
		}
		if ok && changed[i] {
			previous = append(previous, old)
		}
	}
	for _, n := range order {
		if !seen[n] {
			previous = append(previous, prev[n])
		}
	}
	return changed, previous
}
