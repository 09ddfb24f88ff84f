package main

import (
	"context"
	"io"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/route"
)

// renderWithKubeProxy prints what kube-proxy itself hands the kernel tools
// on its first sync of m with cfg's release, flags and host facts, as the
// native renderer prints the mode's payload (route.SyncPayload).
func renderWithKubeProxy(w io.Writer, mode string, m *model.Model, cfg render.Config) error {
	s, err := kubeproxy.RenderFirst(context.Background(), mode, cfg, m)
	if err != nil {
		return err
	}
	text, err := route.SyncPayload(dataplane.Mode(mode), s)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}
