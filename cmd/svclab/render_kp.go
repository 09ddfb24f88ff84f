package main

import (
	"context"
	"io"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// renderWithKubeProxy prints what kube-proxy itself hands the kernel tools
// on its first sync of m with cfg's release and flags; IPVS mode in the
// same three sections as the native renderer.
func renderWithKubeProxy(w io.Writer, mode string, m *model.Model, cfg render.Config) error {
	s, err := kubeproxy.RenderFirst(context.Background(), mode, cfg, m)
	if err != nil {
		return err
	}
	if dataplane.Mode(mode) != dataplane.ModeIPVS {
		_, err = io.WriteString(w, s.Payload)
		return err
	}
	_, err = io.WriteString(w, ipvs.CombinedFromState(s.IPVS, s.IPSet, s.Payload))
	return err
}
