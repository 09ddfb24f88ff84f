package nftables

import (
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Syncer renders kube-proxy's successive nftables transactions for a
// sequence of cluster states, keeping what kube-proxy keeps between syncs:
// the state it last programmed, and the service chains it has flushed but
// not deleted yet. kube-proxy deletes a stale chain in a transaction of its
// own at the start of the first sync that comes at least a second after the
// chain was last flushed; until then every sync flushes it again. Syncs in
// quick succession therefore keep re-flushing; DeleteStale is the deletion.
type Syncer struct {
	opts  Options
	prev  *model.Model
	stale []string
}

// NewSyncer returns a Syncer whose first Sync is a full sync.
func NewSyncer(opts Options) *Syncer { return &Syncer{opts: opts} }

// Sync writes the transaction that brings the table to m: kube-proxy's
// first full sync the first time, a partial sync (RenderSync) after. m
// must not change afterwards: it is the next sync's starting point.
func (s *Syncer) Sync(w io.Writer, m *model.Model) (render.Stats, error) {
	st, flushed, err := renderSync(w, s.prev, m, s.stale, s.opts)
	if err != nil {
		return st, err
	}
	s.prev, s.stale = m, flushed
	return st, nil
}

// Stale returns the chains flushed and not yet deleted.
func (s *Syncer) Stale() []string { return append([]string(nil), s.stale...) }

// DeleteStale writes kube-proxy's stale-chain deletion transaction (one
// `delete chain` per stale chain; nothing if there is none) and forgets
// the chains, as kube-proxy does once they are a second old.
func (s *Syncer) DeleteStale(w io.Writer) (render.Stats, error) {
	out := render.NewWriter(w)
	table := syntaxOf(model.IPv4).table
	if s.prev != nil {
		table = syntaxOf(s.prev.Family).table
	}
	for _, c := range s.stale {
		out.Line("delete chain ", table, " ", c)
	}
	s.stale = nil
	return out.Flush()
}
