package scenario

import (
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
)

// Plan lists every measurement a run of the scenario makes, for
// results.CheckPlan: a fairness run per dataplane and TCP port of every
// explicit service (also of services without a ready endpoint: the run
// cannot measure them, so it is not complete), and a sweep point per
// service count (below the dataplane's maxServices), dataplane, position
// and repetition (1-based).
func (s *Scenario) Plan() *results.Plan {
	p := &results.Plan{}
	if f := s.Fairness; f != nil {
		for _, dp := range f.Dataplanes {
			for i := range s.explicit {
				svc := &s.explicit[i]
				for _, port := range svc.Ports {
					if port.Protocol == model.TCP {
						p.Fairness = append(p.Fairness, results.PlannedFairness{Dataplane: dp, Service: svc.PortName(port)})
					}
				}
			}
		}
	}
	if w := s.Sweep; w != nil {
		for _, n := range w.Services {
			for _, dp := range w.Dataplanes {
				if limit, ok := w.MaxServices[dp]; ok && n > limit {
					continue
				}
				for _, pos := range w.Positions {
					for rep := 1; rep <= w.Repetitions; rep++ {
						p.Points = append(p.Points, results.PlannedPoint{Dataplane: dp, Services: n, Position: pos, Repetition: rep})
					}
				}
			}
		}
	}
	if t := s.Timeline; t != nil {
		p.Timelines = append(p.Timelines, t.Dataplanes...)
	}
	return p
}

// Kind is what a run of the scenario measures: "fairness", "sweep" or
// "mixed" (both).
func (s *Scenario) Kind() string {
	switch {
	case s.Timeline != nil && s.Fairness == nil && s.Sweep == nil:
		return "timeline"
	case s.Fairness != nil && s.Sweep != nil:
		return "mixed"
	case s.Fairness != nil:
		return "fairness"
	}
	return "sweep"
}
