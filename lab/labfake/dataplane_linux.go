package labfake

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/kpname"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/route"
)

// Dataplane is a validating fake dataplane. Every model it programs is
// rendered, and the payload checked as the kernel tool would check it.
type Dataplane struct {
	name string
	mode dataplane.Mode // the kube-proxy mode whose payload it validates (sim/dataplane)
	// lookup is how the dataplane finds a service (sim/dataplane's
	// Lookup): the fake's lookup cost grows with the position for a
	// linear walk.
	lookup dataplane.LookupKind
	lab    *Lab
	// cfg is the kube-proxy configuration it renders with: the
	// settings' flags, the newest release with its defaults otherwise.
	cfg   render.Config
	model *model.Model
	dumps [2]*simipt.Dump // iptables dataplanes: each family's tables after the restores
	// rules are each family's validated state as the tracers read it
	// (the iptables tables with kube-proxy's jump rules, the parsed nft
	// script, the IPVS table with its ipsets and iptables rules); nil for
	// a dataplane without rules (eBPF).
	rules [2]*analyze.Dump
	// oracle traces the rules (built on the first connection), routes
	// caches its answers; see paths_linux.go.
	routeMu sync.Mutex
	oracle  *route.Oracle
	routes  map[route.Query]route.Answer
	// index maps each address the model answers on to its service's
	// position (the rules a lookup walks in iptables mode).
	index map[netip.AddrPort]int
	// extraMicros is what every first packet costs beyond its walk (a
	// walk probe's addrtype rules).
	extraMicros float64
	// counts are the fake kernel's per-endpoint counters.
	counts map[string]uint64
	// Syncs counts the full syncs, Changes the applied changes.
	Syncs, Changes int
}

// Name is the dataplane's name.
func (d *Dataplane) Name() string { return d.name }

// Version says it is a fake.
func (d *Dataplane) Version() string { return "labfake " + d.name }

// FullSync renders, validates and programs m.
func (d *Dataplane) FullSync(ctx context.Context, m *model.Model) (apply.Sync, error) {
	return d.program(ctx, m, true)
}

// Program is FullSync without --noflush.
func (d *Dataplane) Program(ctx context.Context, m *model.Model) (apply.Sync, error) {
	return d.program(ctx, m, false)
}

func (d *Dataplane) program(ctx context.Context, m *model.Model, noflush bool) (apply.Sync, error) {
	if err := ctx.Err(); err != nil {
		return apply.Sync{}, err
	}
	stats, state, err := d.validateFamilies(m, model.Families(m.Services), kernelState{}, noflush, nil)
	if err != nil {
		return apply.Sync{}, err
	}
	d.load(m, state)
	d.Syncs++
	return fakeSync(stats), nil
}

// Apply validates kube-proxy's partial-sync payload for the change on top
// of what is loaded, for each family the change wakes (apply.Change.Families:
// the other family's rules stay as they were), and programs the changed
// model.
func (d *Dataplane) Apply(ctx context.Context, m *model.Model, c apply.Change) (apply.Sync, error) {
	if d.model == nil {
		return apply.Sync{}, fmt.Errorf("fake %s: Apply before any sync", d.name)
	}
	after := c.After(m)
	stats, state, err := d.validateFamilies(after, c.Families(), kernelState{dumps: d.dumps, rules: d.rules}, true, c.Updated(m.Services.Len()))
	if err != nil {
		return apply.Sync{}, err
	}
	d.load(after, state)
	d.Changes++
	return fakeSync(stats), nil
}

// kernelState is what a sync leaves in the fake kernel, per family: the
// iptables tables the next partial restore applies to, and the rules the
// tracers read.
type kernelState struct {
	dumps [2]*simipt.Dump
	rules [2]*analyze.Dump
}

// validateFamilies renders and checks one payload of m per family of
// families, as the real dataplanes load one per family (iptables and
// ip6tables, the ip and ip6 nftables tables), on top of current, and sums
// their sizes; the other families keep current's state.
func (d *Dataplane) validateFamilies(m *model.Model, families []model.Family, current kernelState, noflush bool, partial func(int) bool) (render.Stats, kernelState, error) {
	var total render.Stats
	state := current
	for _, f := range families {
		mf := model.ForFamily(*m, f)
		stats, dump, rules, err := d.validate(&mf, current.dumps[f], noflush, partial)
		if err != nil {
			return total, state, fmt.Errorf("%s payload: %w", f, err)
		}
		state.dumps[f], state.rules[f] = dump, rules
		total.Rules += stats.Rules
		total.Lines += stats.Lines
		total.Bytes += stats.Bytes
		total.Chains += stats.Chains
		total.Sets += stats.Sets
		total.Elements += stats.Elements
	}
	return total, state, nil
}

// validate renders m as the real dataplane would, checks the payload, and
// returns the iptables tables after the restore and the rules as the
// tracers read them (its mode's validator; a dataplane without a
// kube-proxy mode, eBPF, only counts the endpoints).
func (d *Dataplane) validate(m *model.Model, current *simipt.Dump, noflush bool, partial func(int) bool) (render.Stats, *simipt.Dump, *analyze.Dump, error) {
	if v, ok := validators[d.mode]; ok {
		return v(d, m, current, noflush, partial)
	}
	n := 0
	for i := 0; i < m.Services.Len(); i++ {
		n += len(m.Services.At(i).Endpoints)
	}
	return render.Stats{Rules: n, Lines: n}, nil, nil, nil
}

// validator checks one kube-proxy mode's payload of m as its tools would
// (see validate).
type validator func(d *Dataplane, m *model.Model, current *simipt.Dump, noflush bool, partial func(int) bool) (render.Stats, *simipt.Dump, *analyze.Dump, error)

// validators are each kube-proxy mode's; TestEveryModeHasAValidator
// fails on a mode sim/dataplane names without one.
var validators = map[dataplane.Mode]validator{
	dataplane.ModeIPTables: (*Dataplane).validateIPTables,
	dataplane.ModeNFTables: func(d *Dataplane, m *model.Model, _ *simipt.Dump, _ bool, _ func(int) bool) (render.Stats, *simipt.Dump, *analyze.Dump, error) {
		return d.validateNFTables(m)
	},
	dataplane.ModeIPVS: func(d *Dataplane, m *model.Model, _ *simipt.Dump, _ bool, _ func(int) bool) (render.Stats, *simipt.Dump, *analyze.Dump, error) {
		return d.validateIPVS(m)
	},
}

// validateNFTables renders the nft script and parses it as nft would.
func (d *Dataplane) validateNFTables(m *model.Model) (render.Stats, *simipt.Dump, *analyze.Dump, error) {
	var payload bytes.Buffer
	stats, err := route.Render(&payload, m, route.Config{Mode: route.NFTables, Config: d.cfg})
	if err != nil {
		return stats, nil, nil, err
	}
	rs, err := nftables.Parse(bytes.NewReader(payload.Bytes()))
	if err != nil {
		return stats, nil, nil, fmt.Errorf("fake nftables: nft would refuse the script: %w", err)
	}
	return stats, nil, &analyze.Dump{Kind: analyze.KindNFTables, NFT: rs}, nil
}

// validateIPVS renders IPVS mode's three parts and loads them as
// ipvsadm -R, ipset restore and iptables-restore would.
func (d *Dataplane) validateIPVS(m *model.Model) (render.Stats, *simipt.Dump, *analyze.Dump, error) {
	var payload bytes.Buffer
	stats, err := route.Render(&payload, m, route.Config{Mode: route.IPVS, Config: d.cfg})
	if err != nil {
		return stats, nil, nil, err
	}
	rules, err := analyze.Load(&payload)
	if err == nil && rules.Kind != analyze.KindIPVS {
		err = fmt.Errorf("a %s dump, want ipvs", rules.Kind)
	}
	if err != nil {
		return stats, nil, nil, fmt.Errorf("fake ipvs: ipvsadm -R, ipset restore or iptables-restore would refuse the payload: %w", err)
	}
	return stats, nil, rules, nil
}

// validateIPTables restores the (partial) payload onto current as
// iptables-restore would, then kube-proxy's jump rules from the built-in
// chains onto a copy, as the real dataplane ensures them after each
// restore: the copy is what the tracers read.
func (d *Dataplane) validateIPTables(m *model.Model, current *simipt.Dump, noflush bool, partial func(int) bool) (render.Stats, *simipt.Dump, *analyze.Dump, error) {
	var payload, jumps bytes.Buffer
	opts := iptables.OptionsFor(d.cfg)
	var stats render.Stats
	var err error
	if partial != nil {
		stats, err = iptables.RenderPartial(&payload, m, opts, partial)
	} else {
		stats, err = iptables.Render(&payload, m, opts)
	}
	if err == nil {
		_, err = iptables.RenderModelJumps(&jumps, m, opts)
	}
	if err != nil {
		return stats, nil, nil, err
	}
	dump, err := simipt.Apply(current, bytes.NewReader(payload.Bytes()), noflush)
	if err != nil {
		return stats, nil, nil, fmt.Errorf("fake %s: iptables-restore would refuse the payload: %w", d.name, err)
	}
	withJumps, err := simipt.Apply(dump, &jumps, true)
	if err != nil {
		return stats, nil, nil, fmt.Errorf("fake %s: iptables-restore would refuse the jump rules: %w", d.name, err)
	}
	return stats, dump, &analyze.Dump{Kind: analyze.KindIPTables, IPT: withJumps}, nil
}

// load makes m the fake kernel's state and this dataplane the lab's.
func (d *Dataplane) load(m *model.Model, state kernelState) {
	d.model, d.dumps, d.rules, d.extraMicros = m, state.dumps, state.rules, 0
	d.oracle, d.routes = nil, map[route.Query]route.Answer{}
	d.index = d.lab.positions(m)
	if d.counts == nil {
		d.counts = map[string]uint64{}
	}
	d.lab.mu.Lock()
	d.lab.active = d
	d.lab.mu.Unlock()
}

// costMicros is the fake first-packet cost: 20 µs plus 20 ns per rule an
// linear lookup (iptables) walks before it reaches the service, plus the
// loaded walk probe's extraMicros.
func (d *Dataplane) costMicros(target netip.AddrPort) float64 {
	position, ok := d.index[target]
	if !ok || d.lookup != dataplane.LinearWalk {
		return 20
	}
	return 20 + 0.02*float64(position+1) + d.extraMicros
}

// Reset forgets the programmed model.
func (d *Dataplane) Reset(context.Context) error {
	d.model, d.dumps, d.rules, d.index, d.oracle, d.routes = nil, [2]*simipt.Dump{}, [2]*analyze.Dump{}, nil, nil, nil
	return nil
}

// Close resets.
func (d *Dataplane) Close() error { return d.Reset(context.Background()) }

// Count starts counting t's connections.
func (d *Dataplane) Count(_ context.Context, t apply.Target) (apply.Counting, error) {
	if d.model == nil {
		return nil, fmt.Errorf("fake %s: Count before any sync", d.name)
	}
	before := map[string]uint64{}
	for k, v := range d.counts {
		before[k] = v
	}
	return &counting{d: d, t: t, before: before}, nil
}

type counting struct {
	d      *Dataplane
	t      apply.Target
	before map[string]uint64
}

// Stop returns the fake kernel's counts since Count, and for iptables the
// cascade of the service chain as the rule counters would show it.
func (c *counting) Stop(context.Context) (apply.Counters, error) {
	out := apply.Counters{Source: "labfake kernel", Endpoints: map[string]uint64{}}
	eps := c.t.Counted()
	var total uint64
	for i, ep := range eps {
		out.Endpoints[ep] = c.d.counts[ep] - c.before[ep]
		if i == 0 && c.d.lab.machine.MiscountKernel && out.Endpoints[ep] > 0 {
			out.Endpoints[ep]--
		}
		total += out.Endpoints[ep]
	}
	if c.d.mode == dataplane.ModeIPTables {
		out.Cascade = cascade(c.t, eps, out.Endpoints, total)
	}
	return out, nil
}

// cascade is what the statistic cascade's counters show for the counts.
func cascade(t apply.Target, eps []string, counts map[string]uint64, total uint64) *apply.Cascade {
	name, proto := t.Name(), t.Port.Protocol.Lower()
	c := &apply.Cascade{Chain: kpname.ServiceChain(name, proto), Entered: total}
	for i, ep := range eps {
		p := 1.0
		if n := len(eps) - i; n > 1 {
			p = 1 / float64(n)
		}
		c.Rules = append(c.Rules, apply.CascadeRule{Index: i + 2, Target: kpname.EndpointChain(name, proto, ep), Probability: p, Packets: counts[ep]})
	}
	return c
}

var _ apply.Dataplane = (*Dataplane)(nil)

// fakeSync is what a fake load of stats took: a microsecond a rule, nine
// tenths of it as the loading tool's CPU time (a tool that waited a
// little, as the real ones do), two thirds of that in user space.
func fakeSync(stats render.Stats) apply.Sync {
	took := time.Duration(stats.Rules) * time.Microsecond
	return apply.Sync{Payload: stats, Duration: took, CPU: took * 9 / 10, UserCPU: took * 6 / 10}
}
