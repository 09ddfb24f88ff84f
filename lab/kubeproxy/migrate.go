package kubeproxy

import (
	"context"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// MigrateRules is sim/migrate's RulesSource of kube-proxy's own code: it
// runs the proxier of the side's mode and version on m (render mode) and
// loads what it wrote as the kernel tools would (route.LoadSync).
func MigrateRules(side migrate.Side, m *model.Model) (*analyze.Dump, error) {
	s, err := RenderFirst(context.Background(), string(side.Mode), side.Config, m)
	if err != nil {
		return nil, err
	}
	return route.LoadSync(m, route.Config{Mode: side.Mode, Config: side.Config}, s)
}
