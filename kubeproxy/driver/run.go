package driver

import (
	"context"

	"github.com/svclab/svclab/sim/kube"
)

// Run builds the proxier for req, runs the first sync and one sync per
// step, and hands each report to emit. Payload text is dropped when
// req.OmitPayload is set.
func Run(ctx context.Context, req *kube.Request, render bool, emit func(kube.Sync) error) error {
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
	for _, st := range req.Steps {
		s, err := d.Step(st)
		if err != nil {
			return err
		}
		if err := send(s); err != nil {
			return err
		}
	}
	return nil
}
