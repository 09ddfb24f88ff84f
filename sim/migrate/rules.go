package migrate

import (
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// RulesSource writes one side's rules (its mode and render.Config) for one
// family's proxier: m is the whole model with the proxier's family in
// m.Family, as kube-proxy receives it (sim/kube.NewRequest).
type RulesSource func(side Side, m *model.Model) (*analyze.Dump, error)

// NativeRules is svclab's native renderer of the side's mode and version.
func NativeRules(side Side, m *model.Model) (*analyze.Dump, error) {
	mf := model.ForFamily(*m, m.Family)
	return route.Rules(&mf, route.Config{Mode: side.Mode, Config: side.Config})
}
