package timeline

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/svclab/svclab/sim/model"
	tl "github.com/svclab/svclab/sim/timeline"
)

// follow applies the plan's changes at their times until the window ends.
// A change that comes due while the engine is busy is applied together with
// the ones before it (the engine follows the latest state, as kube-proxy's
// sync loop does).
func (x *execution) follow(window context.Context, m0 *model.Model) error {
	changes := x.plan.Changes
	prev, applied := m0, -1
	created, err := x.createdServices()
	if err != nil {
		return err
	}
	for applied < len(changes)-1 {
		wait := time.Until(x.rec.start.Add(changes[applied+1].At))
		select {
		case <-window.Done():
			return nil
		case <-time.After(wait):
		}
		due := max(x.plan.At(x.rec.since(time.Now())), applied+1)
		restart, fresh := false, false
		now := x.rec.since(time.Now())
		for i := applied + 1; i <= due; i++ {
			restart, fresh = restart || changes[i].Restart, fresh || changes[i].Fresh
			x.probeCreated(window, i, created)
			x.rec.add(tl.Observation{At: now, Traffic: tl.ProbeTraffic, Change: i, Kind: tl.Applied})
		}
		next, err := x.plan.Model(x.sc, due)
		if err != nil {
			return err
		}
		trigger := x.rec.start.Add(changes[applied+1].At)
		if err := x.eng.Apply(window, prev, next, trigger, restart, fresh); err != nil {
			if window.Err() != nil {
				return nil
			}
			return fmt.Errorf("change %d (%s): %w", due, changes[due].What, err)
		}
		prev, applied = next, due
	}
	return nil
}

// createdServices is every synthetic service the timeline may have (those
// it creates are the last ones), for the probes' addresses.
func (x *execution) createdServices() (model.List, error) {
	m, err := x.sc.ModelOf(nil, x.plan.MaxSynthetic)
	if err != nil {
		return nil, err
	}
	return m.Services, nil
}

// probeCreated starts the probe of the service change i created, when the
// plan probes it (tl.Plan.Probed).
func (x *execution) probeCreated(window context.Context, i int, all model.List) {
	c := &x.plan.Changes[i]
	if !x.plan.Probed(i) || c.Synthetic-1 >= all.Len() {
		return
	}
	s := all.At(c.Synthetic - 1)
	addr := netip.AddrPortFrom(s.ClusterIP, uint16(s.Ports[0].Port))
	x.wg.Go(func() { probe(window, x.env.ClientNetns, addr, i, x.rec) })
}
