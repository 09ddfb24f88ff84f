package apply

import (
	"bytes"
	"context"
	"fmt"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/render/nftables"
)

// Settings are per-run choices a dataplane needs.
type Settings struct {
	// IPVSScheduler is kube-proxy's --ipvs-scheduler (rr, wrr, lc, sh, mh);
	// empty means rr.
	IPVSScheduler string
	// Version is the kube-proxy release whose rules are written ("" is the
	// newest).
	Version render.KubeProxyVersion
	// Engine is who writes them: "" or "native" (svclab's renderer), or
	// "kube-proxy" (kube-proxy's own code, see lab/kubeproxy).
	Engine string
}

// New returns the restore-text or netlink dataplane called name
// (sim/dataplane) for the node namespace nodeNetns.
func New(name, nodeNetns string, s Settings) (Dataplane, error) {
	info, err := dataplane.Parse(name)
	if err != nil {
		return nil, err
	}
	switch info.Name {
	case dataplane.IPTablesLegacy, dataplane.IPTablesNFT:
		ipt, err := NewIPTables(nodeNetns, name)
		if err != nil {
			return nil, err
		}
		opts := iptables.DefaultOptions()
		opts.Version = s.Version
		return &iptablesDataplane{ipt: ipt, opts: opts}, nil
	case dataplane.NFTables:
		return &nftablesDataplane{nft: &NFTables{Netns: nodeNetns, Options: nftables.Options{Version: s.Version}}}, nil
	case dataplane.IPVS:
		opts := ipvs.DefaultOptions()
		opts.Version = s.Version
		if s.IPVSScheduler != "" {
			opts.Scheduler = s.IPVSScheduler
		}
		return NewIPVS(nodeNetns, opts)
	}
	return nil, fmt.Errorf("dataplane %s is not programmed by package apply (%s)", name, info.Sync)
}

type iptablesDataplane struct {
	ipt  *IPTables
	opts iptables.Options
}

func (d *iptablesDataplane) Name() string    { return "iptables-" + d.ipt.Backend }
func (d *iptablesDataplane) Version() string { return d.ipt.Version() }

// Reset flushes the lab node's filter and nat tables.
func (d *iptablesDataplane) Reset(context.Context) error { return d.ipt.Reset() }

// Close resets the tables.
func (d *iptablesDataplane) Close() error { return d.ipt.Reset() }

// FullSync loads the payload in one restore (timed), then the jump rules from
// the built-in chains (not timed: kube-proxy ensures them separately).
func (d *iptablesDataplane) FullSync(_ context.Context, m *model.Model) (Sync, error) {
	return d.load(m, true)
}

// Program loads the payload without --noflush: iptables-nft 1.8 handles a
// --noflush restore of many new chains far more slowly, and from empty
// tables both leave the same rules.
func (d *iptablesDataplane) Program(_ context.Context, m *model.Model) (Sync, error) {
	return d.load(m, false)
}

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

// Apply renders kube-proxy's partial-sync payload (top-level chains in full,
// only the changed service's chains) and restores it with --noflush.
func (d *iptablesDataplane) Apply(_ context.Context, m *model.Model, c Change) (Sync, error) {
	after := c.After(m)
	var payload bytes.Buffer
	stats, err := iptables.RenderPartial(&payload, after, d.opts, func(k int) bool { return k == c.Service })
	if err != nil {
		return Sync{}, err
	}
	took, err := d.ipt.Restore(payload.Bytes(), true)
	if err != nil {
		return Sync{}, fmt.Errorf("%s partial sync: %w", d.Name(), err)
	}
	return Sync{Payload: stats, Duration: took}, nil
}

// Count snapshots the nat table's counters now; Stop reads them again and
// reports the statistic cascade of the target's service chain and each
// endpoint's DNAT rule, as differences.
func (d *iptablesDataplane) Count(_ context.Context, t Target) (Counting, error) {
	before, err := d.ipt.Snapshot("nat")
	if err != nil {
		return nil, err
	}
	return &iptablesCounting{ipt: d.ipt, target: t, before: before}, nil
}

type nftablesDataplane struct{ nft *NFTables }

func (d *nftablesDataplane) Name() string    { return "nftables" }
func (d *nftablesDataplane) Version() string { return d.nft.Version() }

// Reset deletes the kube-proxy table.
func (d *nftablesDataplane) Reset(context.Context) error { return d.nft.Reset() }

// Close deletes the kube-proxy table.
func (d *nftablesDataplane) Close() error { return d.nft.Reset() }

// FullSync loads the whole script in one nft transaction (timed).
func (d *nftablesDataplane) FullSync(_ context.Context, m *model.Model) (Sync, error) {
	return d.nft.sync(m)
}

// Program is FullSync: nft -f is the only loader of kube-proxy's script.
func (d *nftablesDataplane) Program(ctx context.Context, m *model.Model) (Sync, error) {
	return d.FullSync(ctx, m)
}

// Apply runs the nft transaction kube-proxy would run for the change.
func (d *nftablesDataplane) Apply(_ context.Context, m *model.Model, c Change) (Sync, error) {
	return d.nft.syncChange(m, c)
}

// Count loads svclab's counting table beside kube-proxy's (whose nftables
// rules keep no per-endpoint counter): one counter per endpoint of the first
// packet of each new connection, after DNAT.
func (d *nftablesDataplane) Count(_ context.Context, t Target) (Counting, error) {
	return startWitness(d.nft.Netns, t)
}
