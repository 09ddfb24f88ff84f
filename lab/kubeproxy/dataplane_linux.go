package kubeproxy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/scenario"
)

// init makes lab/apply.Open build every dataplane with kube-proxy's own
// proxier when the settings name the kube-proxy engine.
func init() { apply.RegisterEngine(scenario.EngineKubeProxy, newDataplane) }

// kubeProxyDataplane is the external engine behind the seam: kube-proxy's
// own proxier, run by the driver inside the lab's node namespace, programs
// the kernel and times its own syncs (Sync.Engine). What it leaves in the
// kernel is read and removed as for the native dataplane of the same name.
type kubeProxyDataplane struct {
	apply.Dataplane // the native one: Count, Reset and Close of the same rules
	// engines are kube-proxy per family (IPv4, IPv6), as a dual-stack node
	// runs one proxier per family; the IPv6 one starts with the first IPv6
	// sync.
	engines [2]*Engine
	version render.KubeProxyVersion
	// ip6 flushes the ip6tables rules an IPv6 kube-proxy left (the native
	// dataplane's Reset flushes only the families it loaded itself); nil in
	// nftables mode, whose Reset removes both families' tables.
	ip6  *apply.IPTables
	ran6 bool
}

// newDataplane runs kube-proxy in the mode of the dataplane called name
// (sim/dataplane's Mode and IPTablesBackend) on node n, over the native
// dataplane of the same name.
func newDataplane(name dataplane.Name, n apply.Node, s apply.Settings) (apply.Dataplane, error) {
	info, err := dataplane.Parse(string(name))
	if err != nil {
		return nil, err
	}
	if info.Mode == dataplane.ModeNone {
		return nil, fmt.Errorf("dataplane %s has no kube-proxy mode; the kube-proxy engine runs %v", info.Name, withMode())
	}
	bin, err := Find(string(s.Version))
	if err != nil {
		return nil, err
	}
	native := s
	native.Engine = scenario.EngineNative
	nd, err := apply.Open(string(info.Name), n, native)
	if err != nil {
		return nil, err
	}
	d := &kubeProxyDataplane{Dataplane: nd, version: s.Version.OrLatest()}
	if info.IPTablesBackend != "" { // nftables mode: the native Reset removes both families' tables
		d.ip6 = (&apply.IPTables{Netns: n.Netns, Backend: info.IPTablesBackend}).ForFamily(model.IPv6)
	}
	for i := range d.engines {
		d.engines[i] = &Engine{NS: n.Netns, Bin: bin, Mode: string(info.Mode), IPTables: info.IPTablesBackend, Config: s.Config}
	}
	return d, nil
}

// withMode names the dataplanes that load a kube-proxy mode's payload.
func withMode() []string {
	var out []string
	for _, d := range dataplane.All() {
		if d.Mode != dataplane.ModeNone {
			out = append(out, string(d.Name))
		}
	}
	return out
}

// Version names kube-proxy's release and the tools under it.
func (d *kubeProxyDataplane) Version() string {
	return "kube-proxy v" + string(d.version) + " (driver); " + d.Dataplane.Version()
}

// FullSync starts one kube-proxy per family of m on an empty node and
// reports their first syncs, summed. Each proxier is handed the whole
// model with its family (kube.NewRequest projects it).
func (d *kubeProxyDataplane) FullSync(ctx context.Context, m *model.Model) (apply.Sync, error) {
	var sync apply.Sync
	for _, f := range model.Families(m.Services) {
		mf := *m
		mf.Family = f
		d.ran6 = d.ran6 || f == model.IPv6
		s, err := engineSync(d.engines[f].FullSync(ctx, &mf))
		if err != nil {
			return apply.Sync{}, fmt.Errorf("kube-proxy %s full sync: %w", f, err)
		}
		sync = addSync(sync, s)
	}
	return sync, nil
}

// addSync sums two engine reports.
func addSync(a, b apply.Sync) apply.Sync {
	return apply.Sync{Payload: render.Stats{Bytes: a.Payload.Bytes + b.Payload.Bytes}, Duration: a.Duration + b.Duration, Engine: true}
}

// Program is FullSync: kube-proxy has one way to program a node.
func (d *kubeProxyDataplane) Program(ctx context.Context, m *model.Model) (apply.Sync, error) {
	return d.FullSync(ctx, m)
}

// Apply hands the change to the kube-proxy of each family it wakes
// (apply.Change.Families: kube-proxy's metaproxier hands an EndpointSlice
// to its address type's proxier alone) and reports their partial syncs,
// summed.
func (d *kubeProxyDataplane) Apply(_ context.Context, m *model.Model, c apply.Change) (apply.Sync, error) {
	var sync apply.Sync
	after := c.After(m)
	for _, f := range c.Families() {
		s, err := engineSync(d.engines[f].Apply(m.Services, after.Services))
		if err != nil {
			return apply.Sync{}, fmt.Errorf("kube-proxy %s partial sync: %w", f, err)
		}
		sync = addSync(sync, s)
	}
	return sync, nil
}

// closeEngines stops every family's kube-proxy and flushes the ip6tables
// rules the IPv6 one wrote.
func (d *kubeProxyDataplane) closeEngines() error {
	err := errors.Join(d.engines[0].Close(), d.engines[1].Close())
	if d.ran6 && d.ip6 != nil {
		err = errors.Join(err, d.ip6.Reset())
	}
	d.ran6 = false
	return err
}

// RecentLists counts the xt_recent lists kube-proxy's ClientIP-affinity
// rules made in the node's namespace, as the native dataplane of the same
// name counts its own (apply.RecentLister): the kernel charges no memory
// cgroup for them, so a sweep expects them beside its own charge. It
// fails where the native one cannot count (nftables mode has no lists).
func (d *kubeProxyDataplane) RecentLists() (int, error) {
	lister, ok := d.Dataplane.(apply.RecentLister)
	if !ok {
		return 0, fmt.Errorf("kube-proxy %s: no xt_recent lists to count", d.Name())
	}
	return lister.RecentLists()
}

// Reset stops kube-proxy and removes its rules.
func (d *kubeProxyDataplane) Reset(ctx context.Context) error {
	return errors.Join(d.closeEngines(), d.Dataplane.Reset(ctx))
}

// Close stops kube-proxy and removes its rules.
func (d *kubeProxyDataplane) Close() error {
	return errors.Join(d.closeEngines(), d.Dataplane.Close())
}

// engineSync turns kube-proxy's report into the seam's Sync.
func engineSync(s kube.Sync, err error) (apply.Sync, error) {
	if err == nil && s.Error != "" {
		err = errors.New(s.Error)
	}
	if err != nil {
		return apply.Sync{}, err
	}
	return apply.Sync{Payload: render.Stats{Bytes: s.PayloadBytes}, Duration: time.Duration(s.DurationNS), Engine: true}, nil
}
