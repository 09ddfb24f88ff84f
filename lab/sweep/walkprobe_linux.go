package sweep

import (
	"context"
	"fmt"
	"maps"
	"net/netip"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// recordType is the record type of the point's measurements: a walk
// probe's are kept apart from the sweep's points.
func (l *sweepLab) recordType() string {
	switch {
	case l.plan.addrTypeRules > 0:
		return results.TypeAddrTypeProbe
	case l.plan.recentTables > 0:
		return results.TypeRecentProbe
	case l.plan.walkProbe:
		return results.TypeWalkProbe
	case l.plan.syncProbe:
		return results.TypeSyncProbe
	}
	return results.TypePoint
}

// loadWalkProbe loads the point's walk probe: the KUBE-SERVICES rules of
// its N services with the targets' chains alone (not timed, no
// incremental sync: the probe measures the walk).
func (l *sweepLab) loadWalkProbe(ctx context.Context, _ *scenario.Sweep, _ Options) error {
	prober, ok := l.dp.(apply.WalkProber)
	if !ok {
		return fmt.Errorf("%s: this engine cannot load a walk probe (it is svclab's native iptables payload; use --engine native)", l.plan.dataplane)
	}
	keep := make([]netip.Addr, 0, len(scenario.SweepTargetIPs))
	for _, ip := range scenario.SweepTargetIPs {
		keep = append(keep, ip)
	}
	sync, err := prober.LoadWalkProbe(ctx, l.model, keep, iptables.WalkProbeExtras{AddrTypeRules: l.plan.addrTypeRules, RecentTables: l.plan.recentTables})
	if err != nil {
		return err
	}
	l.base = results.Point{Dataplane: l.plan.dataplane, Services: l.plan.services, Rules: sync.Payload.Rules,
		Bytes: sync.Payload.Bytes, Lines: sync.Payload.Lines}
	kind := "walk probe"
	if n := l.plan.addrTypeRules; n > 0 {
		kind = fmt.Sprintf("addrtype probe (the walk probe and %d addrtype rules)", n)
	}
	if n := l.plan.recentTables; n > 0 {
		kind = fmt.Sprintf("recent probe (the walk probe, %d xt_recent lists and %d rules checking one more)", n, iptables.RecentProbeRules)
	}
	l.syncLine = fmt.Sprintf("%-16s %6d services: %s, %d rules, %d bytes", l.plan.dataplane, l.plan.services, kind, sync.Payload.Rules, sync.Payload.Bytes)
	return nil
}

// markProbeExtras records on an addrtype probe's points how many
// addrtype rules it added (results.ExtraAddrTypeRules), on a recent
// probe's how many lists it created and rules checked one more
// (results.ExtraRecentTables, ExtraRecentRules).
func (l *sweepLab) markProbeExtras(points []results.Point) {
	extra := map[string]float64{}
	if n := l.plan.addrTypeRules; n > 0 {
		extra[results.ExtraAddrTypeRules] = float64(n)
	}
	if n := l.plan.recentTables; n > 0 {
		extra[results.ExtraRecentTables], extra[results.ExtraRecentRules] = float64(n), iptables.RecentProbeRules
	}
	for i := range points {
		if points[i].Extra == nil {
			points[i].Extra = map[string]float64{}
		}
		maps.Copy(points[i].Extra, extra)
	}
}

// reloadWalkProbe loads the probe again for every repetition after the
// first when the sweep reloads its rules (sweep.syncEachRepetition): a long
// walk's cost depends on the state each load leaves in the kernel (50,000
// services' iptables-legacy walk took 233 to 416 µs over 8 reloads, 5,000's
// 36 to 41 µs: results/plan-holdout/legacy-walk-modes), so the probe's
// repetitions sample that spread as the points' do.
func (l *sweepLab) reloadWalkProbe(ctx context.Context, spec *scenario.Sweep, rep int) error {
	if !spec.WalkProbeReload || rep == 1 {
		return nil
	}
	if err := l.dp.Reset(ctx); err != nil {
		return err
	}
	return l.loadWalkProbe(ctx, spec, Options{})
}
