package apply

import (
	"bytes"
	"fmt"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/render/nftables"
)

// Sync is the outcome of programming a model: the payload's size and how
// long the kernel tool took to load it.
type Sync struct {
	Payload  render.Stats
	Duration time.Duration
}

// Dataplane renders a model and programs it into a node namespace.
type Dataplane interface {
	// Name is the dataplane's name, e.g. "iptables-nft".
	Name() string
	// FullSync programs m from scratch in one restore or transaction, the
	// way kube-proxy does (iptables-restore --noflush, nft -f), and times it.
	FullSync(m *model.Model) (Sync, error)
	// Program loads m from scratch by the fastest method that leaves the
	// same rules in the kernel (e.g. a restore without --noflush into empty
	// tables). It is for measurements that need the rules, not their
	// loading time.
	Program(m *model.Model) (Sync, error)
	// IncrementalSync adds ep to service i of m (already programmed) the way
	// kube-proxy's partial sync does, and times it.
	IncrementalSync(m *model.Model, i int, ep model.Endpoint) (Sync, error)
	// Reset removes everything the dataplane programmed.
	Reset() error
	// Version names the tool that loads the rules.
	Version() string
}

// Settings are per-run choices a dataplane needs.
type Settings struct {
	// IPVSScheduler is kube-proxy's --ipvs-scheduler (rr, wrr, lc, sh, mh);
	// empty means rr.
	IPVSScheduler string
}

// New returns the dataplane called name ("iptables-legacy", "iptables-nft",
// "nftables", "ipvs") for the node namespace nodeNetns.
func New(name, nodeNetns string, s Settings) (Dataplane, error) {
	switch name {
	case "iptables-legacy", "iptables-nft":
		ipt, err := NewIPTables(nodeNetns, name)
		if err != nil {
			return nil, err
		}
		return &iptablesDataplane{ipt: ipt, opts: iptables.DefaultOptions()}, nil
	case "nftables":
		return &nftablesDataplane{nft: &NFTables{Netns: nodeNetns}}, nil
	case "ipvs":
		opts := ipvs.DefaultOptions()
		if s.IPVSScheduler != "" {
			opts.Scheduler = s.IPVSScheduler
		}
		return NewIPVS(nodeNetns, opts)
	}
	return nil, fmt.Errorf("dataplane %q is not supported (use iptables-legacy, iptables-nft, nftables or ipvs)", name)
}

type iptablesDataplane struct {
	ipt  *IPTables
	opts iptables.Options
}

func (d *iptablesDataplane) Name() string    { return "iptables-" + d.ipt.Backend }
func (d *iptablesDataplane) Version() string { return d.ipt.Version() }
func (d *iptablesDataplane) Reset() error    { return d.ipt.Reset() }

// FullSync loads the payload in one restore (timed), then the jump rules from
// the built-in chains (not timed: kube-proxy ensures them separately).
func (d *iptablesDataplane) FullSync(m *model.Model) (Sync, error) { return d.load(m, true) }

// Program loads the payload without --noflush: iptables-nft 1.8 handles a
// --noflush restore of many new chains far more slowly, and from empty
// tables both leave the same rules.
func (d *iptablesDataplane) Program(m *model.Model) (Sync, error) { return d.load(m, false) }

func (d *iptablesDataplane) load(m *model.Model, noflush bool) (Sync, error) {
	var payload bytes.Buffer
	stats, err := iptables.Render(&payload, m, d.opts)
	if err != nil {
		return Sync{}, err
	}
	took, err := d.ipt.Restore(payload.Bytes(), noflush)
	if err != nil {
		return Sync{}, fmt.Errorf("%s full sync: %w", d.Name(), err)
	}
	if err := d.ipt.EnsureJumps(iptables.Jumps(d.opts)); err != nil {
		return Sync{}, fmt.Errorf("%s jump rules: %w", d.Name(), err)
	}
	return Sync{Payload: stats, Duration: took}, nil
}

// IncrementalSync renders kube-proxy's partial-sync payload (top-level
// chains in full, only service i's chains) and restores it with --noflush.
func (d *iptablesDataplane) IncrementalSync(m *model.Model, i int, ep model.Endpoint) (Sync, error) {
	svc := *m.Services.At(i)
	svc.Endpoints = append(append([]model.Endpoint(nil), svc.Endpoints...), ep)
	after := &model.Model{Cluster: m.Cluster, Services: model.Replace(m.Services, i, svc)}
	var payload bytes.Buffer
	stats, err := iptables.RenderPartial(&payload, after, d.opts, func(k int) bool { return k == i })
	if err != nil {
		return Sync{}, err
	}
	took, err := d.ipt.Restore(payload.Bytes(), true)
	if err != nil {
		return Sync{}, fmt.Errorf("%s partial sync: %w", d.Name(), err)
	}
	return Sync{Payload: stats, Duration: took}, nil
}

type nftablesDataplane struct{ nft *NFTables }

func (d *nftablesDataplane) Name() string    { return "nftables" }
func (d *nftablesDataplane) Version() string { return d.nft.Version() }
func (d *nftablesDataplane) Reset() error    { return d.nft.Reset() }

// FullSync loads the whole script in one nft transaction (timed).
func (d *nftablesDataplane) FullSync(m *model.Model) (Sync, error) {
	var script bytes.Buffer
	stats, err := nftables.Render(&script, m, nftables.Options{})
	if err != nil {
		return Sync{}, err
	}
	took, err := d.nft.Load(script.Bytes())
	if err != nil {
		return Sync{}, fmt.Errorf("nftables full sync: %w", err)
	}
	return Sync{Payload: stats, Duration: took}, nil
}

// Program is FullSync: nft -f is the only loader of kube-proxy's script.
func (d *nftablesDataplane) Program(m *model.Model) (Sync, error) { return d.FullSync(m) }

// IncrementalSync runs the nft transaction kube-proxy would run when one
// endpoint is added to service i.
func (d *nftablesDataplane) IncrementalSync(m *model.Model, i int, ep model.Endpoint) (Sync, error) {
	var script bytes.Buffer
	stats, err := nftables.RenderIncremental(&script, m, i, ep, nftables.Options{})
	if err != nil {
		return Sync{}, err
	}
	took, err := d.nft.Load(script.Bytes())
	if err != nil {
		return Sync{}, fmt.Errorf("nftables incremental sync: %w", err)
	}
	return Sync{Payload: stats, Duration: took}, nil
}

// IPTablesOf returns the iptables applier behind an iptables dataplane.
func IPTablesOf(d Dataplane) (*IPTables, bool) {
	if x, ok := d.(*iptablesDataplane); ok {
		return x.ipt, true
	}
	return nil, false
}
