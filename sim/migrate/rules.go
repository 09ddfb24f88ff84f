package migrate

import (
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/route"
)

// RulesSource writes one side's rules for one family's proxier: m is the
// whole model with the side's flags in m.Cluster.Proxy and the proxier's
// family in m.Family, as kube-proxy receives it (sim/kube.NewRequest).
type RulesSource func(side Side, m *model.Model) (*analyze.Dump, error)

// NativeRules is svclab's native renderer of the side's mode and version.
func NativeRules(side Side, m *model.Model) (*analyze.Dump, error) {
	mf := model.ForFamily(*m, m.Family)
	return route.Rules(&mf, route.Config{Mode: side.Mode, Config: render.Config{Version: side.Version, LocalhostNodePortsGate: side.LocalhostNodePortsGate}})
}

// SyncRules loads what kube-proxy's own proxier wrote on its first sync
// (lab/kubeproxy.RenderFirst) as the kernel tools would: the iptables
// payload restored into empty tables and the jump rules kube-proxy
// ensures from the built-in chains added; the nft transaction parsed;
// IPVS mode's ipvsadm, ipset and iptables state parsed.
func SyncRules(mode dataplane.Mode, s kube.Sync, m *model.Model) (*analyze.Dump, error) {
	switch mode {
	case dataplane.ModeIPTables:
		mf := model.ForFamily(*m, m.Family)
		return route.LoadIPTables(strings.NewReader(s.Payload), &mf)
	case dataplane.ModeIPVS:
		d, err := analyze.Load(strings.NewReader(ipvs.CombinedFromState(s.IPVS, s.IPSet, s.Payload)))
		if err != nil {
			return nil, fmt.Errorf("migrate: load kube-proxy's ipvs state: %w", err)
		}
		return d, route.AddIPVSJumps(d)
	}
	d, err := analyze.Load(strings.NewReader(s.Payload))
	if err != nil {
		return nil, fmt.Errorf("migrate: load kube-proxy's %s payload: %w", mode, err)
	}
	return d, nil
}
