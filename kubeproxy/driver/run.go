package driver

import (
	"context"

	"github.com/svclab/svclab/sim/kube"
)

// Run builds the proxier for req, runs the first sync and one sync per
// step of req, then one per step that next returns until it returns nil
// (next may be nil: no further steps). Each report goes to emit; payload
// text is dropped when req.OmitPayload is set.
func Run(ctx context.Context, req *kube.Request, render bool, next func() (*kube.Step, error), emit func(kube.Sync) error) error {
	d, err := New(ctx, req, render)
	if err != nil {
		return err
	}
	send := func(s kube.Sync) error {
		if req.OmitPayload {
			s.Payload, s.IPVS, s.IPSet = "", "", ""
		}
		return emit(s)
	}
	s, err := d.Start(req.Objects, req.ServiceCIDRs)
	if err != nil {
		return err
	}
	if err := send(s); err != nil {
		return err
	}
	step := func(st kube.Step) error {
		s, err := d.Step(st)
		if err != nil {
			return err
		}
		return send(s)
	}
	for _, st := range req.Steps {
		if err := step(st); err != nil {
			return err
		}
	}
	for next != nil {
		st, err := next()
		if err != nil || st == nil {
			return err
		}
		if err := step(*st); err != nil {
			return err
		}
	}
	return nil
}
