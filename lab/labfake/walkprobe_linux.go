package labfake

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
)

// fakeAddrTypeMicros is the fake cost of an addrtype match a walk probe's
// addrtype rules add to every first packet (µs; a plain rule's is 0.02).
const fakeAddrTypeMicros = 0.08

// fakeRecentStepMicros is the fake cost of a step of xt_recent's walk of
// its lists, which a recent probe's rules take to its last list (µs).
const fakeRecentStepMicros = 0.01

// LoadWalkProbe validates a walk probe as iptables-restore would take it
// (an iptables dataplane only, keep naming services of m, every jump to a
// chain the probe has, extras added) and programs m, whose first packets
// then cost what the walk to their KUBE-SERVICES rule costs, plus
// fakeAddrTypeMicros an addrtype rule and fakeRecentStepMicros a step of
// the recent probe's walks of its lists.
func (d *Dataplane) LoadWalkProbe(ctx context.Context, m *model.Model, keep []netip.Addr, extras iptables.WalkProbeExtras) (apply.Sync, error) {
	if err := ctx.Err(); err != nil {
		return apply.Sync{}, err
	}
	if d.mode != dataplane.ModeIPTables {
		return apply.Sync{}, fmt.Errorf("fake %s: a walk probe is an iptables payload, this dataplane loads %s", d.name, d.mode)
	}
	mf := model.ForFamily(*m, model.IPv4)
	opts := iptables.OptionsFor(d.cfg)
	var jumps bytes.Buffer
	if _, err := iptables.RenderModelJumps(&jumps, &mf, opts); err != nil {
		return apply.Sync{}, err
	}
	probe, stats, err := iptables.RenderWalkProbeWith(&mf, opts, keep, extras)
	if err != nil {
		return apply.Sync{}, fmt.Errorf("fake %s: %w", d.name, err)
	}
	dump, err := simipt.Apply(nil, bytes.NewReader(probe), false)
	if err != nil {
		return apply.Sync{}, fmt.Errorf("fake %s: iptables-restore would refuse the walk probe: %w", d.name, err)
	}
	withJumps, err := simipt.Apply(dump, &jumps, true)
	if err != nil {
		return apply.Sync{}, fmt.Errorf("fake %s: iptables-restore would refuse the jump rules: %w", d.name, err)
	}
	var state kernelState
	state.dumps[model.IPv4], state.rules[model.IPv4] = dump, &analyze.Dump{Kind: analyze.KindIPTables, IPT: withJumps}
	d.load(m, state)
	d.extraMicros = fakeAddrTypeMicros * float64(extras.AddrTypeRules)
	if extras.RecentTables > 0 {
		d.extraMicros += fakeRecentStepMicros * float64(iptables.RecentProbeRules*(extras.RecentTables+1))
	}
	d.Syncs++
	return apply.Sync{Payload: stats}, nil
}
