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

// LoadWalkProbe validates a walk probe as iptables-restore would take it
// (an iptables dataplane only, keep naming services of m, every jump to a
// chain the probe has) and programs m, whose first packets then cost what
// the walk to their KUBE-SERVICES rule costs.
func (d *Dataplane) LoadWalkProbe(ctx context.Context, m *model.Model, keep []netip.Addr) (apply.Sync, error) {
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
	probe, stats, err := iptables.RenderWalkProbe(&mf, opts, keep)
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
	d.Syncs++
	return apply.Sync{Payload: stats}, nil
}
