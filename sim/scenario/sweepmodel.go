package scenario

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
)

// A sweep's target services: one per position, all backed by the same two
// real pods, placed first, in the middle and last among the fillers.
var (
	sweepPods = []netip.Addr{netip.MustParseAddr("10.244.0.2"), netip.MustParseAddr("10.244.0.3")}
	// SweepTargetIPs are the target services' ClusterIPs by position.
	SweepTargetIPs = map[string]netip.Addr{"first": netip.MustParseAddr("10.96.0.2"), "middle": netip.MustParseAddr("10.96.0.3"), "last": netip.MustParseAddr("10.96.0.4")}
	// SweepTargetPort is every target service's port.
	SweepTargetPort = model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}
)

// sweepTarget is the target service for a position.
func sweepTarget(position string) model.Service {
	svc := model.Service{Namespace: "svclab", Name: "target-" + position, Type: model.ClusterIP,
		ClusterIP: SweepTargetIPs[position], Ports: []model.Port{SweepTargetPort}}
	for _, ip := range sweepPods {
		svc.Endpoints = append(svc.Endpoints, model.Endpoint{IP: ip, Ready: true, Node: "node-1"})
	}
	return svc
}

// SweepTargets are the services a sweep lab serves: the three targets
// (their endpoints become the lab's pods).
func SweepTargets() model.Slice {
	return model.Slice{sweepTarget("first"), sweepTarget("middle"), sweepTarget("last")}
}

// SweepModel builds n services for one sweep point: n-3 fillers shaped by
// synthetic.mix ("clusters like ours") with the three targets inserted
// first, in the middle and last (n counts the targets; at least 3).
func (s *Scenario) SweepModel(n, endpoints int, seed uint64) (*model.Model, *model.Generator, error) {
	fillers := max(n-3, 0)
	gen, err := s.sweepFillers(fillers, endpoints, seed)
	if err != nil {
		return nil, nil, err
	}
	services := model.Insert(gen, []model.Insertion{
		{Before: 0, Service: sweepTarget("first")},
		{Before: fillers / 2, Service: sweepTarget("middle")},
		{Before: fillers, Service: sweepTarget("last")},
	})
	return &model.Model{Cluster: s.Cluster(), Services: services}, gen, nil
}

// SweepCreations returns k new services for the sweep point of n services
// (sweep.incrementalBatchKind: services): the fillers the generator would
// make after the point's own, so their names and ClusterIPs are the
// point's none.
func (s *Scenario) SweepCreations(n, endpoints int, seed uint64, k int) ([]model.Service, error) {
	fillers := max(n-3, 0)
	gen, err := s.sweepFillers(fillers+k, endpoints, seed)
	if err != nil {
		return nil, fmt.Errorf("%d services created on %d: %w", k, n, err)
	}
	out := make([]model.Service, k)
	for i := range out {
		out[i] = *gen.At(fillers + i)
	}
	return out, nil
}

// sweepFillers is the generator of a sweep's filler services.
func (s *Scenario) sweepFillers(fillers, endpoints int, seed uint64) (*model.Generator, error) {
	reserved := []netip.Addr{SweepTargetIPs["first"], SweepTargetIPs["middle"], SweepTargetIPs["last"]}
	var mix *model.Mix
	if s.Synthetic != nil {
		mix = s.Synthetic.Mix
	}
	return model.NewGenerator(model.GeneratorConfig{
		Services: fillers, EndpointsPerService: endpoints, Seed: seed, Mix: mix,
		ServiceCIDR: s.Cluster().ServiceCIDR, EndpointCIDR: s.FillerCIDR(),
		ExcludeEndpoints: []netip.Prefix{s.PodCIDR()}, ReservedClusterIPs: reserved,
	})
}
