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

// LoadWalkProbe validates a walk probe as iptables-restore would take it
// (an iptables dataplane only, keep naming services of m, every jump to a
// chain the probe has, addrTypeRules addrtype rules added) and programs m,
// whose first packets then cost what the walk to their KUBE-SERVICES rule
// costs, plus fakeAddrTypeMicros an addrtype rule.
func (d *Dataplane) LoadWalkProbe(ctx context.Context, m *model.Model, keep []netip.Addr, addrTypeRules int) (apply.Sync, error) {
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
	if err == nil && addrTypeRules > 0 {
		probe, stats, err = iptables.RenderAddrTypeProbe(&mf, opts, probe, addrTypeRules)
	}
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
	d.extraMicros = fakeAddrTypeMicros * float64(addrTypeRules)
	d.Syncs++
	return apply.Sync{Payload: stats}, nil
}
