package apply

import (
	"context"
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
)

// WalkProber is a dataplane that can load a walk probe instead of a model's
// full ruleset: every KUBE-SERVICES rule of the model, but the chains of
// the services whose ClusterIPs are in keep alone (render/iptables'
// WalkProbe), so a long rule walk is measured without the full sync; with
// extras, addrtype rules or xt_recent lists added (render/iptables'
// RenderWalkProbeWith), so an addrtype match or a step of xt_recent's walk
// of its lists is timed against it.
type WalkProber interface {
	LoadWalkProbe(ctx context.Context, m *model.Model, keep []netip.Addr, extras iptables.WalkProbeExtras) (Sync, error)
}

// LoadWalkProbe renders m's IPv4 payload, turns it into a walk probe (with
// extras) and restores it into empty tables (untimed: the probe is for the
// walk, not the sync), then the jump rules from the built-in chains.
func (d *iptablesDataplane) LoadWalkProbe(_ context.Context, m *model.Model, keep []netip.Addr, extras iptables.WalkProbeExtras) (Sync, error) {
	mf := model.ForFamily(*m, model.IPv4)
	probe, stats, err := iptables.RenderWalkProbeWith(&mf, d.opts, keep, extras)
	if err != nil {
		return Sync{}, fmt.Errorf("%s: %w", d.Name(), err)
	}
	took, err := d.ipt.Restore(probe, false)
	if err != nil {
		return Sync{}, fmt.Errorf("%s walk probe restore: %w", d.Name(), err)
	}
	if err := d.ipt.EnsureJumps(iptables.ModelJumps(&mf, d.opts)); err != nil {
		return Sync{}, fmt.Errorf("%s walk probe jump rules: %w", d.Name(), err)
	}
	return Sync{}.add(stats, took), nil
}
