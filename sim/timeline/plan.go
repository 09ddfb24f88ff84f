package timeline

import (
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// Change is the cluster's state from At on, after one step of an event.
type Change struct {
	At time.Duration
	// Event is the index of the event (scenario Timeline.Events) this
	// change is a step of.
	Event int
	// What says what changed, e.g. "scale default/statsd to 0".
	What string
	// Explicit are the explicit services after the change; Synthetic the
	// number of synthetic services (the generator's first ones).
	Explicit  model.Slice
	Synthetic int
	// Deleted are the pods deleted at this change: their addresses stop
	// answering (the lab keeps a sink there).
	Deleted []netip.Addr
	// Added and Removed are endpoint addresses that became, or stopped
	// being, serving endpoints of Service at this change; Created the
	// synthetic services created (indexes [Synthetic-Created, Synthetic)).
	Service        string
	Added, Removed []netip.Addr
	Created        int
	// Restart restarts kube-proxy here; Fresh on a node without rules.
	Restart, Fresh bool
}

// Plan is a timeline as a sequence of states.
type Plan struct {
	// Initial is the state before the first change (At 0, Event -1).
	Initial Change
	// Changes are in time order.
	Changes []Change
	// Pods are the explicit services with every endpoint address any state
	// has (for the lab, which builds every pod up front).
	Pods model.Slice
	// MaxSynthetic is the most synthetic services any state has.
	MaxSynthetic int
	// synthetic are the MaxSynthetic synthetic services, generated once
	// (Model): every state's are a prefix of them.
	synthetic     model.Slice
	syntheticErr  error
	syntheticOnce sync.Once
}

// Build expands a scenario's timeline into its plan.
func Build(sc *scenario.Scenario) (*Plan, error) {
	t := sc.Timeline
	if t == nil {
		return nil, fmt.Errorf("scenario %s has no timeline", sc.Name)
	}
	b := newBuilder(sc)
	for i, e := range t.Events {
		b.schedule(e.At, func() error { return b.start(i, e) })
	}
	if err := b.run(); err != nil {
		return nil, err
	}
	return b.plan, nil
}

// At returns the index of the change in effect at t (-1: the initial state).
func (p *Plan) At(t time.Duration) int {
	i, _ := slices.BinarySearchFunc(p.Changes, t, func(c Change, t time.Duration) int {
		if c.At <= t {
			return -1
		}
		return 1
	})
	return i - 1
}

// State returns change i's state (-1: the initial one).
func (p *Plan) State(i int) *Change {
	if i < 0 {
		return &p.Initial
	}
	return &p.Changes[i]
}

// Model builds the model of state i for the scenario. Its synthetic
// services are a prefix of one list generated once for the plan, so two
// states share their unchanged services: a step between them (kube.Diff)
// skips those without generating each again (at 10,000 services that took
// 44 ms a step, against a storm's 10 ms between changes).
func (p *Plan) Model(sc *scenario.Scenario, i int) (*model.Model, error) {
	p.syntheticOnce.Do(func() {
		var all *model.Model
		if all, p.syntheticErr = sc.ModelOf(nil, p.MaxSynthetic); p.syntheticErr == nil {
			p.synthetic = model.Materialize(all.Services)
		}
	})
	if p.syntheticErr != nil {
		return nil, p.syntheticErr
	}
	st := p.State(i)
	return sc.ModelOfServices(st.Explicit, p.synthetic[:st.Synthetic])
}

// DeletedBy lists the pods deleted at or before state i, with when.
func (p *Plan) DeletedBy(i int) map[netip.Addr]time.Duration {
	out := map[netip.Addr]time.Duration{}
	for j := 0; j <= i && j < len(p.Changes); j++ {
		for _, ip := range p.Changes[j].Deleted {
			out[ip] = p.Changes[j].At
		}
	}
	return out
}

// MaxProbed is about how many created services a run probes (every
// ⌊created/MaxProbed⌋-th one).
const MaxProbed = 100

// Probed says whether the service change i created is probed: every
// ⌊created/MaxProbed⌋-th creation is, so about MaxProbed spread evenly.
func (p *Plan) Probed(i int) bool {
	if p.Changes[i].Created == 0 {
		return false
	}
	total, nth := 0, 0
	for j := range p.Changes {
		if p.Changes[j].Created > 0 {
			if j == i {
				nth = total
			}
			total++
		}
	}
	return nth%max(total/MaxProbed, 1) == 0
}
