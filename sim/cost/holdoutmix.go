package cost

import (
	"fmt"

	"github.com/svclab/svclab/sim/scenario"
)

// WithScenario attaches sc, the scenario run was made from, after checking
// it against the hash meta.json recorded. A sweep whose fillers a
// synthetic.mix shapes (a cluster's shape: svclab import --scenario) is
// then predicted, point by point, for the services it loaded, as svclab
// plan --objects predicts a cluster: their rendered composition (rules,
// chains, elements, KUBE-SERVICES rules walked), not N one-port services.
func (r *Run) WithScenario(sc *scenario.Scenario) error {
	switch {
	case r.Source.ScenarioHash == "":
		return fmt.Errorf("run %s: its meta.json records no scenario hash to check %s against", r.Source.Name, sc.Name)
	case sc.Hash() != r.Source.ScenarioHash:
		return fmt.Errorf("scenario %s (sha256 %.12s) is not the one run %s was made from (sha256 %.12s in its meta.json): give that file, unchanged",
			sc.Name, sc.Hash(), r.Source.Name, r.Source.ScenarioHash)
	case sc.Sweep == nil:
		return fmt.Errorf("scenario %s has no sweep: run %s is not a sweep of it", sc.Name, r.Source.Name)
	}
	r.Scenario = sc
	return nil
}

// endpointsPerService is the endpoints each of the run's synthetic
// services had: its scenario's sweep.endpointsPerService when attached
// (WithScenario), else 1, a calibration's. nftables writes the same rules
// for one endpoint and for two (a numgen map instead of a dnat), so the
// points' rules cannot tell.
func (r *Run) endpointsPerService() int {
	if r.Scenario == nil || r.Scenario.Sweep == nil {
		return 1
	}
	return max(r.Scenario.Sweep.EndpointsPerService, 1)
}

// mixed says whether the run's scenario shapes its fillers with a mix.
func (r *Run) mixed() bool {
	return r.Scenario != nil && r.Scenario.Synthetic != nil && r.Scenario.Synthetic.Mix != nil
}

// pointCompositions renders, once per size, the services a mix-shaped
// sweep point loaded (scenario.SweepModel, as the lab builds them).
type pointCompositions struct {
	run   *Run
	sizes map[int]*Composition
}

// at is the composition of the run's point of n services; nil when the
// run's fillers are not shaped by a mix (N one-port services).
func (pc *pointCompositions) at(n int) (*Composition, error) {
	if !pc.run.mixed() {
		return nil, nil
	}
	if c, ok := pc.sizes[n]; ok {
		return c, nil
	}
	sc := pc.run.Scenario
	m, _, err := sc.SweepModel(n, sc.Sweep.EndpointsPerService, sc.Sweep.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s at %d services: %w", sc.Name, n, err)
	}
	c, err := CompositionOf(fmt.Sprintf("%s at %d services", sc.Name, n), 1, m)
	if err != nil {
		return nil, err
	}
	if pc.sizes == nil {
		pc.sizes = map[int]*Composition{}
	}
	pc.sizes[n] = &c
	return &c, nil
}
