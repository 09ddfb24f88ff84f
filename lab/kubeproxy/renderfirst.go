package kubeproxy

import (
	"context"
	"fmt"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderFirst runs kube-proxy's own proxier for mode ("iptables",
// "nftables", "ipvs"), cfg's release and flags in render mode (no kernel,
// any OS): the payload of its first, full sync of m, as it hands it to the
// kernel tools. A missing driver is ErrNotBuilt.
func RenderFirst(ctx context.Context, mode string, cfg render.Config, m *model.Model) (kube.Sync, error) {
	version := cfg.Version
	bin, err := Find(string(version))
	if err != nil {
		return kube.Sync{}, err
	}
	req, err := kube.NewRequest(mode, cfg, m)
	if err != nil {
		return kube.Sync{}, err
	}
	syncs, err := Render(ctx, bin, req)
	if err != nil {
		return kube.Sync{}, err
	}
	if s := syncs[0]; s.Error != "" {
		return s, fmt.Errorf("kube-proxy %s %s: %s", version, mode, s.Error)
	}
	return syncs[0], nil
}
