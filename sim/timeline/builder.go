package timeline

import (
	"container/heap"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// builder applies the events' steps in time order to a running state; a
// step may schedule later steps (a rolling update's).
type builder struct {
	sc    *scenario.Scenario
	plan  *Plan
	cur   Change
	queue actions
	seq   int
	pods  *podAddrs
	known map[string]map[netip.Addr]bool // service → every endpoint address it had
}

func newBuilder(sc *scenario.Scenario) *builder {
	explicit := sc.Explicit()
	syn := 0
	if sc.Synthetic != nil {
		syn = sc.Synthetic.Services
	}
	b := &builder{sc: sc, plan: &Plan{MaxSynthetic: syn}, pods: newPodAddrs(sc.PodCIDR(), explicit), known: map[string]map[netip.Addr]bool{}}
	b.cur = Change{Event: -1, What: "start", Explicit: cloneServices(explicit), Synthetic: syn}
	b.plan.Initial = b.cur
	b.plan.Pods = cloneServices(explicit)
	return b
}

// action is a step due at a time; seq keeps file order among equal times.
type action struct {
	at  time.Duration
	seq int
	fn  func() error
}

type actions []action

func (a actions) Len() int { return len(a) }
func (a actions) Less(i, j int) bool {
	return a[i].at < a[j].at || a[i].at == a[j].at && a[i].seq < a[j].seq
}
func (a actions) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *actions) Push(x any)   { *a = append(*a, x.(action)) }
func (a *actions) Pop() any {
	old := *a
	x := old[len(old)-1]
	*a = old[:len(old)-1]
	return x
}

func (b *builder) schedule(at time.Duration, fn func() error) {
	b.seq++
	heap.Push(&b.queue, action{at: at, seq: b.seq, fn: fn})
}

func (b *builder) run() error {
	for b.queue.Len() > 0 {
		a := heap.Pop(&b.queue).(action)
		b.cur.At = a.at
		if err := a.fn(); err != nil {
			return err
		}
	}
	return nil
}

// commit records the current state as a change of event i.
func (b *builder) commit(event int, what string, edit func(c *Change)) {
	c := Change{At: b.cur.At, Event: event, What: what, Explicit: cloneServices(b.cur.Explicit), Synthetic: b.cur.Synthetic}
	edit(&c)
	b.cur = c
	b.plan.Changes = append(b.plan.Changes, c)
	b.plan.MaxSynthetic = max(b.plan.MaxSynthetic, c.Synthetic)
	for _, s := range c.Explicit {
		b.notePods(&s)
	}
}

// notePods adds s's endpoint addresses to the lab's pods.
func (b *builder) notePods(s *model.Service) {
	k := kube.Key(s)
	if b.known[k] == nil {
		b.known[k] = map[netip.Addr]bool{}
		for _, p := range b.plan.Pods {
			if kube.Key(&p) == k {
				for _, e := range p.Endpoints {
					b.known[k][e.IP] = true
				}
			}
		}
	}
	for _, e := range s.Endpoints {
		if b.known[k][e.IP] {
			continue
		}
		b.known[k][e.IP] = true
		for i := range b.plan.Pods {
			if kube.Key(&b.plan.Pods[i]) == k {
				b.plan.Pods[i].Endpoints = append(b.plan.Pods[i].Endpoints, model.Endpoint{IP: e.IP, Ready: true, Serving: true, Node: e.Node})
			}
		}
	}
}

// service finds the explicit service key in c.
func service(c *Change, key string) *model.Service {
	for i := range c.Explicit {
		if kube.Key(&c.Explicit[i]) == key {
			return &c.Explicit[i]
		}
	}
	return nil
}

// start runs the first step of event i.
func (b *builder) start(i int, e scenario.Event) error {
	switch e.Kind {
	case scenario.EventScale:
		return b.scale(i, e)
	case scenario.EventRollingUpdate:
		return b.roll(i, e)
	case scenario.EventCreateServices, scenario.EventDeleteServices:
		return b.storm(i, e)
	case scenario.EventChangeService:
		return b.change(i, e)
	case scenario.EventRestart:
		what := "restart kube-proxy"
		if e.Fresh {
			what += " on a node without rules"
		}
		b.commit(i, what, func(c *Change) { c.Restart, c.Fresh = true, e.Fresh })
		return nil
	case scenario.EventDeletePod:
		return b.deletePod(i, e)
	}
	return fmt.Errorf("timeline: event %d: unknown kind %q", i, e.Kind)
}

func cloneServices(in model.Slice) model.Slice {
	out := make(model.Slice, len(in))
	for i, s := range in {
		s.Endpoints = slices.Clone(s.Endpoints)
		s.Ports = slices.Clone(s.Ports)
		out[i] = s
	}
	return out
}
