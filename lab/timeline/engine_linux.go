package timeline

import (
	"context"
	"fmt"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
)

// Engine makes the node's rules follow the timeline's states.
type Engine interface {
	// Start programs the first state with a full sync.
	Start(ctx context.Context, m *model.Model) error
	// Apply makes the node follow next; prev is the state it follows now.
	// trigger is the wall-clock time of the earliest change not applied
	// yet; restart restarts kube-proxy first (fresh: on a node without
	// rules).
	Apply(ctx context.Context, prev, next *model.Model, trigger time.Time, restart, fresh bool) error
	// Syncs are the syncs made so far, timed from start.
	Syncs(start time.Time) []results.TimelineSync
	// Close stops the engine; the lab removes the rules.
	Close() error
}

// Native is svclab's renderer as an engine: every change is rendered in
// full and loaded at once (a full sync), with no sync loop between and no
// conntrack cleanup (kube-proxy's is its own code, not restated here).
type Native struct {
	DP    apply.Dataplane
	syncs []timedSync
}

type timedSync struct {
	at       time.Time
	took     time.Duration
	services int
	restart  bool
}

// Start loads the first state.
func (n *Native) Start(ctx context.Context, m *model.Model) error { return n.sync(ctx, m, true) }

// Apply loads next in full; a fresh restart removes the rules first.
func (n *Native) Apply(ctx context.Context, _, next *model.Model, _ time.Time, restart, fresh bool) error {
	if restart && fresh {
		if err := n.DP.Reset(ctx); err != nil {
			return fmt.Errorf("%s: reset for a fresh restart: %w", n.DP.Name(), err)
		}
	}
	return n.sync(ctx, next, restart)
}

func (n *Native) sync(ctx context.Context, m *model.Model, restart bool) error {
	at := time.Now()
	s, err := n.DP.FullSync(ctx, m)
	if err != nil {
		return fmt.Errorf("%s full sync of %d services: %w", n.DP.Name(), m.Services.Len(), err)
	}
	n.syncs = append(n.syncs, timedSync{at: at, took: s.Duration, services: m.Services.Len(), restart: restart})
	return nil
}

// Syncs are the full syncs made.
func (n *Native) Syncs(start time.Time) []results.TimelineSync {
	var out []results.TimelineSync
	for _, s := range n.syncs {
		out = append(out, results.TimelineSync{AtS: s.at.Sub(start).Seconds(), DurationS: s.took.Seconds(), Full: true, Services: s.services, Restart: s.restart})
	}
	return out
}

// Close releases the dataplane (its rules are reset).
func (n *Native) Close() error { return n.DP.Close() }
