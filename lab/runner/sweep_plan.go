package runner

import (
	"math/rand/v2"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// Target services of a sweep: one per position, all backed by the same two
// real pods, placed first, in the middle and last among the fillers.
var (
	sweepPods       = []netip.Addr{netip.MustParseAddr("10.244.0.2"), netip.MustParseAddr("10.244.0.3")}
	sweepTargetIPs  = map[string]netip.Addr{"first": netip.MustParseAddr("10.96.0.2"), "middle": netip.MustParseAddr("10.96.0.3"), "last": netip.MustParseAddr("10.96.0.4")}
	sweepTargetPort = model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}
)

// sweepTarget is the target service for a position.
func sweepTarget(position string) model.Service {
	svc := model.Service{Namespace: "svclab", Name: "target-" + position, Type: model.ClusterIP,
		ClusterIP: sweepTargetIPs[position], Ports: []model.Port{sweepTargetPort}}
	for _, ip := range sweepPods {
		svc.Endpoints = append(svc.Endpoints, model.Endpoint{IP: ip, Ready: true, Node: "node-1"})
	}
	return svc
}

// sweepScenario is the scenario a sweep lab serves: its targets as explicit
// services (their pods become lab pods).
func sweepTargets() model.Slice {
	return model.Slice{sweepTarget("first"), sweepTarget("middle"), sweepTarget("last")}
}

// sweepModel builds N services: N-3 fillers with the three targets inserted
// first, in the middle and last (N counts the targets; at least 3).
func sweepModel(sc *scenario.Scenario, n, endpoints int, seed uint64) (*model.Model, *model.Generator, error) {
	fillers := max(n-3, 0)
	reserved := []netip.Addr{sweepTargetIPs["first"], sweepTargetIPs["middle"], sweepTargetIPs["last"]}
	var mix *model.Mix // the fillers follow synthetic.mix: a sweep of "clusters like ours"
	if sc.Synthetic != nil {
		mix = sc.Synthetic.Mix
	}
	gen, err := model.NewGenerator(model.GeneratorConfig{
		Services: fillers, EndpointsPerService: endpoints, Seed: seed, Mix: mix,
		ServiceCIDR: sc.Cluster().ServiceCIDR, EndpointCIDR: sc.FillerCIDR(),
		ExcludeEndpoints: []netip.Prefix{sc.PodCIDR()}, ReservedClusterIPs: reserved,
	})
	if err != nil {
		return nil, nil, err
	}
	services := model.Insert(gen, []model.Insertion{
		{Before: 0, Service: sweepTarget("first")},
		{Before: fillers / 2, Service: sweepTarget("middle")},
		{Before: fillers, Service: sweepTarget("last")},
	})
	return &model.Model{Cluster: sc.Cluster(), Services: services}, gen, nil
}

// planPoint is one (dataplane, service count) a sweep measures.
type planPoint struct {
	dataplane string
	services  int
}

// sweepPlan lists the points, skipping counts above a dataplane's cap.
func sweepPlan(s *scenario.Sweep) []planPoint {
	var out []planPoint
	for _, n := range s.Services {
		for _, dp := range s.Dataplanes {
			if limit, ok := s.MaxServices[dp]; ok && n > limit {
				continue
			}
			out = append(out, planPoint{dataplane: dp, services: n})
		}
	}
	return out
}

// shuffled returns a seeded permutation of 0..n-1, so repetitions visit the
// points in a different order and machine drift does not pass for scaling.
func shuffled(n int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 0x5ee9))
	return rng.Perm(n)
}
