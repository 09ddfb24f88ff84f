package main

import (
	"context"
	"io"
	"strings"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// renderWithKubeProxy prints what kube-proxy itself hands the kernel tools
// on its first sync of m; IPVS mode in the same three sections as the
// native renderer.
func renderWithKubeProxy(w io.Writer, mode string, m *model.Model, v render.KubeProxyVersion) error {
	s, err := kubeproxy.RenderFirst(context.Background(), mode, v, m)
	if err != nil {
		return err
	}
	if dataplane.Mode(mode) != dataplane.ModeIPVS {
		_, err = io.WriteString(w, s.Payload)
		return err
	}
	for _, part := range []struct {
		p    ipvs.Part
		text string
	}{{ipvs.PartIPVSAdm, s.IPVS}, {ipvs.PartIPSet, restoreForm(s.IPSet)}, {ipvs.PartIPTables, s.Payload}} {
		if _, err := io.WriteString(w, part.p.Header()+"\n"+part.text); err != nil {
			return err
		}
	}
	return nil
}

// restoreForm turns the driver's `ipset save` state into `ipset restore`
// input, the form the native renderer prints: every create and add with
// -exist.
func restoreForm(save string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(save, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		if strings.HasPrefix(body, "create ") || strings.HasPrefix(body, "add ") {
			body += " -exist"
		}
		b.WriteString(body)
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}
