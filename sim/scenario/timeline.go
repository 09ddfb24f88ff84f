package scenario

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/model"
)

// Timeline is a scenario's timeline: events at given times while traffic
// runs through the node, observed for Duration (sim/timeline turns it into
// the objects kube-proxy receives; the lab runs it).
type Timeline struct {
	// Duration is the observation window, from the first sync.
	Duration time.Duration
	// Dataplanes are measured one after the other.
	Dataplanes []string
	// MinSyncPeriod and SyncPeriod are kube-proxy's sync-loop settings.
	MinSyncPeriod, SyncPeriod time.Duration
	// Traffic runs through the whole window.
	Traffic []Traffic
	// Events are in time order (events at the same time in file order).
	Events []Event
}

// Traffic is one generator: new TCP connections at Rate per second, or a
// one-way UDP sender (one socket, a fixed source port) of Rate packets
// per second.
type Traffic struct {
	Protocol model.Protocol
	// Service is "namespace/name" of an explicit service; Port is its port.
	Service string
	Port    int
	Rate    int
	// From is "pod" (a client pod) or "external" (outside the node).
	From string
	// SourcePort is the UDP sender's fixed source port.
	SourcePort int
	// Timeout is how long a TCP connect waits.
	Timeout time.Duration
}

// EventKind names what an event does.
type EventKind string

// Event kinds.
const (
	EventScale          EventKind = "scale"
	EventRollingUpdate  EventKind = "rollingUpdate"
	EventCreateServices EventKind = "createServices"
	EventDeleteServices EventKind = "deleteServices"
	EventChangeService  EventKind = "changeService"
	EventRestart        EventKind = "restartKubeProxy"
	EventDeletePod      EventKind = "deletePod"
)

// Event is one event of a timeline. Which fields are set depends on Kind.
type Event struct {
	At   time.Duration
	Kind EventKind
	// Service is "namespace/name" (scale, rollingUpdate, changeService,
	// deleteServices of one service).
	Service string
	// Replicas is scale's endpoint count.
	Replicas int
	// Interval and Overlap pace a rolling update: one endpoint is replaced
	// every Interval; the old one serves while terminating for Overlap.
	Interval, Overlap time.Duration
	// Count services are created or deleted, spread evenly over Over.
	Count int
	Over  time.Duration
	// Ports is changeService's new port list (nil: unchanged);
	// SessionAffinity its new affinity ("": unchanged).
	Ports           []model.Port
	SessionAffinity string
	// Fresh restarts kube-proxy on a node without rules (a new node).
	Fresh bool
	// IP is deletePod's pod address; Grace how long its endpoint stays
	// (terminating, not serving) before it is removed.
	IP    netip.Addr
	Grace time.Duration
	// Comment is free text shown with the event in reports.
	Comment string
}

// String is the event's kind and its object, e.g. "scale default/statsd".
func (e Event) String() string {
	switch {
	case e.Kind == EventScale:
		return fmt.Sprintf("scale %s to %d", e.Service, e.Replicas)
	case e.Kind == EventCreateServices || e.Kind == EventDeleteServices && e.Service == "":
		return fmt.Sprintf("%s %d over %v", e.Kind, e.Count, e.Over)
	case e.Service != "":
		return string(e.Kind) + " " + e.Service
	case e.IP.IsValid():
		return string(e.Kind) + " " + e.IP.String()
	case e.Kind == EventRestart && e.Fresh:
		return string(e.Kind) + " on a node without rules"
	}
	return string(e.Kind)
}

// timelineOf types a validated timeline section.
func timelineOf(f *file) *Timeline {
	t := f.Timeline
	if t == nil {
		return nil
	}
	out := &Timeline{Duration: mustDuration(t.Duration), Dataplanes: slices.Clone(t.Dataplanes),
		MinSyncPeriod: mustDuration(t.MinSyncPeriod), SyncPeriod: mustDuration(t.SyncPeriod)}
	for _, tr := range t.Traffic {
		out.Traffic = append(out.Traffic, Traffic{Protocol: model.Protocol(tr.Protocol), Service: canonicalService(tr.Service),
			Port: *tr.Port, Rate: *tr.Rate, From: tr.From, SourcePort: derefOr(tr.SourcePort, 0), Timeout: mustDuration(tr.Timeout)})
	}
	for _, e := range t.Events {
		out.Events = append(out.Events, eventOf(e))
	}
	slices.SortStableFunc(out.Events, func(a, b Event) int { return int(a.At - b.At) })
	return out
}

// eventOf types one validated event.
func eventOf(e timelineEvent) Event {
	ev := Event{At: mustDuration(e.At), Comment: e.Comment}
	switch {
	case e.Scale != nil:
		ev.Kind, ev.Service, ev.Replicas = EventScale, canonicalService(e.Scale.Service), *e.Scale.Replicas
	case e.RollingUpdate != nil:
		r := e.RollingUpdate
		ev.Kind, ev.Service, ev.Interval, ev.Overlap = EventRollingUpdate, canonicalService(r.Service), mustDuration(r.Interval), mustDuration(r.Overlap)
	case e.CreateServices != nil:
		s := e.CreateServices
		ev.Kind, ev.Count, ev.Over = EventCreateServices, *s.Count, mustDuration(s.Over)
	case e.DeleteServices != nil:
		d := e.DeleteServices
		ev.Kind, ev.Count, ev.Over = EventDeleteServices, derefOr(d.Count, 0), mustDuration(d.Over)
		if d.Service != "" {
			ev.Service, ev.Count = canonicalService(d.Service), 1
		}
	case e.ChangeService != nil:
		c := e.ChangeService
		ev.Kind, ev.Service, ev.SessionAffinity = EventChangeService, canonicalService(c.Service), c.SessionAffinity
		for _, p := range c.Ports {
			ev.Ports = append(ev.Ports, model.Port{Name: p.Name, Protocol: model.Protocol(p.Protocol), Port: p.Port, TargetPort: *p.TargetPort, NodePort: p.NodePort})
		}
	case e.RestartKubeProxy != nil:
		ev.Kind, ev.Fresh = EventRestart, e.RestartKubeProxy.Fresh
	case e.DeletePod != nil:
		ev.Kind, ev.IP, ev.Grace = EventDeletePod, netip.MustParseAddr(e.DeletePod.IP), mustDuration(e.DeletePod.Grace)
	}
	return ev
}

// canonicalService is "namespace/name" of a validated service reference.
func canonicalService(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return serviceKey("", name)
}

// mustDuration parses a validated duration ("" is 0).
func mustDuration(s string) time.Duration {
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		panic("scenario: unvalidated duration " + s)
	}
	return d
}

func derefOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// ModelOf builds the model of a moment of the scenario's timeline: explicit
// in place of the explicit services, among the first synthetic ones of the
// generator (created services are more of them), placed as the scenario
// says.
func (s *Scenario) ModelOf(explicit model.Slice, synthetic int) (*model.Model, error) {
	eps, seed := 0, uint64(0)
	if syn := s.Synthetic; syn != nil {
		eps, seed = syn.EndpointsPerService, syn.Seed
	}
	gen, err := newGeneratorFor(&s.f, synthetic, eps, seed)
	if err != nil {
		return nil, err
	}
	return s.ModelOfServices(explicit, gen)
}

// ModelOfServices is ModelOf with the synthetic services given (a prefix of the
// generator's, which ModelOf would generate).
func (s *Scenario) ModelOfServices(explicit model.Slice, synthetic model.List) (*model.Model, error) {
	pos, err := model.ParsePosition(s.Placement)
	if err != nil {
		return nil, err
	}
	return &model.Model{Cluster: s.Cluster(), Services: model.Place(explicit, synthetic, pos)}, nil
}
