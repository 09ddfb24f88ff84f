package apply

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/render/nftables"
)

// Settings are per-run choices a dataplane needs: the kube-proxy
// configuration whose rules are written (render.Config: release, feature
// gate, IPVS scheduler, host facts) and who writes them.
type Settings struct {
	render.Config
	// Engine is who writes them: "" or "native" (svclab's renderer), or
	// "kube-proxy" (kube-proxy's own code, see lab/kubeproxy).
	Engine string
}

// init registers the dataplanes this package programs: every dataplane of
// kube-proxy's iptables mode (one per iptables backend), nftables and IPVS.
func init() {
	for _, d := range dataplane.ByMode(dataplane.ModeIPTables) {
		Register(d.Name, func(n Node, s Settings) (Dataplane, error) { return newIPTablesDataplane(d.Name, n, s) })
	}
	Register(dataplane.NFTables, newNFTablesDataplane)
	Register(dataplane.IPVS, newIPVSDataplane)
}

// newIPTablesDataplane loads kube-proxy's iptables rules through the
// backend of the dataplane called name.
func newIPTablesDataplane(name dataplane.Name, n Node, s Settings) (Dataplane, error) {
	ipt, err := NewIPTables(n.Netns, string(name))
	if err != nil {
		return nil, err
	}
	return &iptablesDataplane{name: name, ipt: ipt, ipt6: ipt.ForFamily(model.IPv6), opts: iptables.OptionsFor(s.Config)}, nil
}

// newNFTablesDataplane loads kube-proxy's nftables script with nft -f.
func newNFTablesDataplane(n Node, s Settings) (Dataplane, error) {
	return &nftablesDataplane{nft: &NFTables{Netns: n.Netns, Options: nftables.OptionsFor(s.Config)}}, nil
}

// newIPVSDataplane programs IPVS over netlink with s's scheduler.
func newIPVSDataplane(n Node, s Settings) (Dataplane, error) {
	return NewIPVS(n.Netns, ipvs.OptionsFor(s.Config))
}

// iptablesDataplane loads one payload per family of the model, as
// kube-proxy runs one proxier per family: iptables-restore for IPv4,
// ip6tables-restore for IPv6.
type iptablesDataplane struct {
	name      dataplane.Name
	ipt, ipt6 *IPTables
	opts      iptables.Options
	// v6 says IPv6 rules were loaded, so Reset flushes ip6tables too.
	v6 bool
}

// RecentLists counts the xt_recent lists in the node's namespace
// (/proc/net/xt_recent there: one file per list, both families').
func (d *iptablesDataplane) RecentLists() (int, error) {
	out, err := netns.Output(d.ipt.Netns, nil, "ls", "-1", "/proc/net/xt_recent")
	if err != nil {
		return 0, fmt.Errorf("%s: list xt_recent's lists in netns %s: %w", d.Name(), d.ipt.Netns, err)
	}
	return len(strings.Fields(string(out))), nil
}

func (d *iptablesDataplane) forFamily(f model.Family) *IPTables {
	if f == model.IPv6 {
		return d.ipt6
	}
	return d.ipt
}

func (d *iptablesDataplane) Name() string    { return string(d.name) }
func (d *iptablesDataplane) Version() string { return d.ipt.Version() }

// Reset flushes the lab node's filter and nat tables (of both families
// once IPv6 rules were loaded).
func (d *iptablesDataplane) Reset(context.Context) error {
	err := d.ipt.Reset()
	if d.v6 {
		err = errors.Join(err, d.ipt6.Reset())
	}
	return err
}

// Close resets the tables.
func (d *iptablesDataplane) Close() error { return d.Reset(context.Background()) }

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
	var sync Sync
	for _, f := range model.Families(m.Services) {
		mf := model.ForFamily(*m, f)
		var payload bytes.Buffer
		stats, err := iptables.Render(&payload, &mf, d.opts)
		if err != nil {
			return Sync{}, fmt.Errorf("%s %s payload: %w", d.Name(), f, err)
		}
		ipt := d.forFamily(f)
		d.v6 = d.v6 || f == model.IPv6
		took, err := ipt.Restore(payload.Bytes(), noflush)
		if err != nil {
			return Sync{}, fmt.Errorf("%s %s full sync: %w", d.Name(), f, err)
		}
		if err := ipt.EnsureJumps(iptables.ModelJumps(&mf, d.opts)); err != nil {
			return Sync{}, fmt.Errorf("%s %s jump rules: %w", d.Name(), f, err)
		}
		sync = sync.add(stats, took)
	}
	return sync, nil
}

// Apply renders kube-proxy's partial-sync payload (top-level chains in full,
// only the changed and the created services' chains) of each family the
// change wakes (Change.Families: an endpoint's family alone) and restores
// it with --noflush.
func (d *iptablesDataplane) Apply(_ context.Context, m *model.Model, c Change) (Sync, error) {
	after := c.After(m)
	var sync Sync
	for _, f := range c.Families() {
		mf := model.ForFamily(*after, f)
		var payload bytes.Buffer
		stats, err := iptables.RenderPartial(&payload, &mf, d.opts, c.Updated(m.Services.Len()))
		if err != nil {
			return Sync{}, fmt.Errorf("%s %s payload: %w", d.Name(), f, err)
		}
		d.v6 = d.v6 || f == model.IPv6
		took, err := d.forFamily(f).Restore(payload.Bytes(), true)
		if err != nil {
			return Sync{}, fmt.Errorf("%s %s partial sync: %w", d.Name(), f, err)
		}
		sync = sync.add(stats, took)
	}
	return sync, nil
}

// addStats sums two payloads' sizes.
func addStats(a, b render.Stats) render.Stats {
	return render.Stats{Lines: a.Lines + b.Lines, Bytes: a.Bytes + b.Bytes, Rules: a.Rules + b.Rules,
		Chains: a.Chains + b.Chains, Sets: a.Sets + b.Sets, Elements: a.Elements + b.Elements}
}

// Count snapshots the nat table's counters now; Stop reads them again and
// reports the statistic cascade of the target's service chain and each
// endpoint's DNAT rule, as differences.
func (d *iptablesDataplane) Count(_ context.Context, t Target) (Counting, error) {
	ipt := d.forFamily(t.Family())
	before, err := ipt.Snapshot("nat")
	if err != nil {
		return nil, err
	}
	return &iptablesCounting{ipt: ipt, target: t, before: before}, nil
}

type nftablesDataplane struct{ nft *NFTables }

func (d *nftablesDataplane) Name() string    { return string(dataplane.NFTables) }
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
