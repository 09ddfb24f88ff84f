package apply

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Sync is the outcome of programming a model or applying one change: the
// payload's size and how long the sync took. Engine is true when the
// duration is the engine's own measurement (kube-proxy's syncProxyRules),
// not svclab's timing of a tool it ran. CPU is the CPU time (user plus
// system, from the processes' rusage) of the tools that applied the payload
// (iptables-restore, nft -f): the sync's work without the time a busy
// machine made it wait; 0 when no tool process applied it (netlink, BPF
// maps, an engine). UserCPU is CPU's user part, the tools' own work (for
// iptables-legacy-restore: parsing the payload and building the table);
// the rest is the kernel's (taking the table in).
type Sync struct {
	Payload  render.Stats
	Duration time.Duration
	CPU      time.Duration
	UserCPU  time.Duration
	Engine   bool
}

// RecentLister is a dataplane that can count the xt_recent lists in its
// node's namespace (the iptables dataplanes'), which the kernel allocates
// without charging a memory cgroup (iptables.RecentListBytes of the
// machine's hash buckets each).
type RecentLister interface {
	RecentLists() (int, error)
}

// Took is one tool run's wall-clock time and its process's CPU time (user
// plus system) and user CPU time.
type Took struct{ Wall, CPU, UserCPU time.Duration }

// add returns the sync with one more payload and tool run added.
func (s Sync) add(stats render.Stats, t Took) Sync {
	s.Payload, s.Duration = addStats(s.Payload, stats), s.Duration+t.Wall
	s.CPU, s.UserCPU = s.CPU+t.CPU, s.UserCPU+t.UserCPU
	return s
}

// Change is what one sync programs: Endpoint added to the service at index
// Service of the model and, in the same sync, each of More (kube-proxy's
// sync loop carries every change queued since its last sync; a sweep times
// such a batch), then the services of Created appended after the model's
// (Service creations in the same sync). The changes in More have no More or
// Created of their own and name services other than Service and each other.
// Service is -1 when the change only creates services.
type Change struct {
	Service  int
	Endpoint model.Endpoint
	More     []Change
	Created  []model.Service
}

// Each returns the change's endpoint additions one by one, Service's first.
func (c Change) Each() []Change {
	if c.Service < 0 {
		return c.More
	}
	return append([]Change{{Service: c.Service, Endpoint: c.Endpoint}}, c.More...)
}

// Families are the IP families whose proxier the change wakes, IPv4
// first: kube-proxy runs one per family and hands each EndpointSlice to
// its address type's alone (pkg/proxy/metaproxier), a created Service to
// each family it has, so a partial sync loads only these families'
// payloads.
func (c Change) Families() []model.Family {
	woken := map[model.Family]bool{}
	for _, one := range c.Each() {
		woken[model.FamilyOf(one.Endpoint.IP)] = true
	}
	if len(c.Created) > 0 {
		for _, f := range model.Families(model.Slice(c.Created)) {
			woken[f] = true
		}
	}
	var out []model.Family
	for _, f := range []model.Family{model.IPv4, model.IPv6} {
		if woken[f] {
			out = append(out, f)
		}
	}
	return out
}

// Changed reports whether the service at index i is one the change adds an
// endpoint to.
func (c Change) Changed(i int) bool {
	return slices.ContainsFunc(c.Each(), func(one Change) bool { return one.Service == i })
}

// Updated returns, for the model after the change of a model of before
// services, whether the service at index i is one the sync writes: one the
// change adds an endpoint to or one it creates.
func (c Change) Updated(before int) func(int) bool {
	return func(i int) bool { return i >= before || c.Changed(i) }
}

// RefuseCreations is the error of a dataplane whose Apply programs endpoint
// changes only: nil when c creates no service.
func (c Change) RefuseCreations(dataplane string) error {
	if len(c.Created) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %d Service creations in one sync: only the dataplanes that create services in a partial sync (sim/dataplane's PartialCreates) apply them", dataplane, len(c.Created))
}

// OneByOne applies a batched change as a dataplane that has no batched form
// does: each addition in turn, on the model the previous ones left, with
// their payloads and times summed.
func OneByOne(ctx context.Context, m *model.Model, c Change, apply func(context.Context, *model.Model, Change) (Sync, error)) (Sync, error) {
	if err := c.RefuseCreations("one change at a time"); err != nil {
		return Sync{}, err
	}
	var total Sync
	for _, one := range c.Each() {
		s, err := apply(ctx, m, one)
		if err != nil {
			return Sync{}, err
		}
		total = total.add(s.Payload, Took{Wall: s.Duration, CPU: s.CPU, UserCPU: s.UserCPU})
		total.Engine = s.Engine
		m = one.After(m)
	}
	return total, nil
}

// Target is one service port whose traffic is counted.
type Target struct {
	Service *model.Service
	Port    model.Port
	// Dest is the address the traffic goes to when it is not the
	// ClusterIP and port (a NodePort, externalIP or load-balancer IP).
	Dest netip.AddrPort
	// Endpoints are the "IP:port" endpoints the rules send the traffic
	// to, as sim/route traces them; nil: the service's usable endpoints.
	Endpoints []string
}

// Counted returns the endpoints whose connections are counted: Endpoints,
// or the service's usable endpoints when it is nil.
func (t Target) Counted() []string {
	if t.Endpoints != nil {
		return t.Endpoints
	}
	return t.Service.UsableEndpointAddrs(t.Port)
}

// localPolicy reports whether the target's traffic is routed by a Local
// traffic policy: internalTrafficPolicy for ClusterIP traffic,
// externalTrafficPolicy for the rest.
func (t Target) localPolicy() bool {
	if t.ViaClusterIP() {
		return t.Service.InternalPolicyLocal
	}
	return t.Service.ExternalPolicyLocal
}

// Counters are the kernel's own count of new connections to one target,
// in one shape for every dataplane.
type Counters struct {
	// Source says what was counted, e.g. "iptables DNAT rule packets",
	// "ipvs real-server connections", "BPF backend map",
	// "conntrack NEW events by NAT destination".
	Source string
	// Endpoints maps an endpoint ("IP:port") to its count.
	Endpoints map[string]uint64
	// Cascade is the per-rule view of an iptables statistic cascade; nil
	// for dataplanes without one.
	Cascade *Cascade
}

// Cascade is the kernel's counters for one service chain's statistic
// cascade: how many packets entered the chain, and each endpoint rule's
// counter in order.
type Cascade struct {
	Chain   string
	Entered uint64
	Rules   []CascadeRule
}

// CascadeRule is one rule of a statistic cascade.
type CascadeRule struct {
	Index       int // 1-based position in the chain
	Target      string
	Probability float64 // nominal; 1 for the last rule
	Packets     uint64
}

// Counting is an open count of one target's connections: started before
// traffic, stopped after it.
type Counting interface {
	// Stop ends the count and returns what the kernel counted since it began.
	Stop(ctx context.Context) (Counters, error)
}

// Dataplane is the one seam between the runner and every backend: rules
// loaded by a restore tool, netlink objects, BPF maps, or an external engine
// that programs the kernel itself. The runner never looks behind it.
type Dataplane interface {
	// Name is the dataplane's name (sim/dataplane), e.g. "iptables-nft".
	Name() string
	// Version names the tool or engine that programs the kernel.
	Version() string
	// FullSync programs m from scratch the way kube-proxy does and times it.
	FullSync(ctx context.Context, m *model.Model) (Sync, error)
	// Program loads m from scratch by the fastest method that leaves the
	// same state in the kernel; for measurements that need the rules, not
	// their loading time.
	Program(ctx context.Context, m *model.Model) (Sync, error)
	// Apply makes change c to the programmed model m (m is the state
	// before the change) the way kube-proxy's partial sync does, in one
	// sync where the dataplane has one (apply.OneByOne where it has not),
	// and times it.
	Apply(ctx context.Context, m *model.Model, c Change) (Sync, error)
	// Count starts counting new connections to t.
	Count(ctx context.Context, t Target) (Counting, error)
	// Reset removes everything the dataplane programmed, leaving it usable.
	Reset(ctx context.Context) error
	// Close resets and releases the dataplane.
	Close() error
}

// After returns the model with the change made; m is not modified.
func (c Change) After(m *model.Model) *model.Model {
	services := m.Services
	for _, one := range c.Each() {
		svc := *services.At(one.Service)
		svc.Endpoints = append(append([]model.Endpoint(nil), svc.Endpoints...), one.Endpoint)
		services = model.Replace(services, one.Service, svc)
	}
	if len(c.Created) > 0 {
		created := make([]model.Insertion, len(c.Created))
		for i, svc := range c.Created {
			created[i] = model.Insertion{Before: services.Len(), Service: svc}
		}
		services = model.Insert(services, created)
	}
	return &model.Model{Cluster: m.Cluster, Services: services}
}

// Address is where the target's traffic goes: Dest when set, else the
// ClusterIP and port.
func (t Target) Address() netip.AddrPort {
	if t.Dest.IsValid() {
		return t.Dest
	}
	return netip.AddrPortFrom(t.Service.ClusterIP, uint16(t.Port.Port))
}

// ViaClusterIP reports whether the traffic goes to the ClusterIP, so that
// KUBE-SERVICES jumps straight to the service chain.
func (t Target) ViaClusterIP() bool {
	return t.Address() == netip.AddrPortFrom(t.Service.ClusterIP, uint16(t.Port.Port))
}

// Family is the IP family of the target's traffic.
func (t Target) Family() model.Family { return model.FamilyOf(t.Address().Addr()) }

// Name is the target's service port name as kube-proxy writes it
// ("namespace/name:port").
func (t Target) Name() string { return t.Service.PortName(t.Port) }
