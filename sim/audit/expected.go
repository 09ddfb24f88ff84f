package audit

import (
	"context"
	"fmt"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/route"
)

// Renderer returns the rules kube-proxy of mode and configuration cfg
// (release and flags) writes on the node of m for m.Family's proxier (m is
// the whole model), as the kernel holds them after its first sync: the
// payload and the jump rules from the built-in chains.
type Renderer func(m *model.Model, mode dataplane.Mode, cfg render.Config) (*analyze.Dump, error)

// Native renders with svclab's renderers (sim/route.Rules, which loads
// each mode's payload with its jump rules), which the conformance suite
// holds to kube-proxy's own output.
func Native(m *model.Model, mode dataplane.Mode, cfg render.Config) (*analyze.Dump, error) {
	mf := model.ForFamily(*m, m.Family)
	return route.Rules(&mf, route.Config{Mode: mode, Config: cfg})
}

// SyncRenderer is lab/kubeproxy.RenderFirst's signature: kube-proxy's own
// proxier in render mode, its first sync of m.
type SyncRenderer func(ctx context.Context, mode string, cfg render.Config, m *model.Model) (kube.Sync, error)

// KubeProxy renders with kube-proxy's own code through r.
func KubeProxy(ctx context.Context, r SyncRenderer) Renderer {
	return func(m *model.Model, mode dataplane.Mode, cfg render.Config) (*analyze.Dump, error) {
		s, err := r(ctx, string(mode), cfg, m)
		if err != nil {
			return nil, err
		}
		return LoadSync(m, mode, cfg, s)
	}
}

// LoadSync loads kube-proxy's first sync of m as the kernel holds it
// (route.LoadSync: the iptables payload restored with the jump rules
// kube-proxy ensures, the nft transaction applied, IPVS's virtual
// servers, ipsets and iptables rules; the jump rules as cfg's flags
// have them); a mode svclab does not know is ErrInput.
func LoadSync(m *model.Model, mode dataplane.Mode, cfg render.Config, s kube.Sync) (*analyze.Dump, error) {
	if _, err := dataplane.ParseMode(string(mode)); err != nil {
		return nil, fmt.Errorf("%w: mode %q", ErrInput, mode)
	}
	return route.LoadSync(m, route.Config{Mode: mode, Config: cfg}, s)
}
