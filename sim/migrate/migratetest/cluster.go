// Package migratetest holds what sim/migrate's tests and its kernel
// checks (lab/migrateverify) share: seeded random clusters.
package migratetest

import (
	"math/rand/v2"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/model"
)

// RandomCluster is a seeded random cluster of n Services from the model's
// generator: every service type, both families, Local policies, affinity,
// external IPs, source ranges, remote and terminating endpoints, on node
// 192.168.99.1 / fd00:99::1.
func RandomCluster(seed uint64, n int) (*model.Model, error) {
	mix := &model.Mix{
		Types:         []model.Weighted[model.ServiceType]{{Value: model.ClusterIP, Weight: 1}, {Value: model.NodePort, Weight: 1}, {Value: model.LoadBalancer, Weight: 1}},
		Families:      []model.Weighted[model.FamilyMix]{{Value: model.SingleIPv4, Weight: 2}, {Value: model.SingleIPv6, Weight: 1}, {Value: model.DualStack, Weight: 2}},
		Endpoints:     []model.Weighted[int]{{Value: 0, Weight: 1}, {Value: 1, Weight: 2}, {Value: 3, Weight: 3}},
		Ports:         []model.Weighted[int]{{Value: 1, Weight: 3}, {Value: 2, Weight: 1}},
		ExternalLocal: 0.5, InternalLocal: 0.3, Affinity: 0.2, ExternalIPs: 0.4, SourceRanges: 0.5, RemoteEndpoints: 0.5,
	}
	g, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: 2, Seed: seed, Mix: mix})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var svcs model.Slice
	for i := 0; i < g.Len(); i++ {
		s := *g.At(i)
		s.Endpoints = slices.Clone(s.Endpoints)
		for j := range s.Endpoints {
			if rng.IntN(6) == 0 {
				s.Endpoints[j].Ready, s.Endpoints[j].Serving, s.Endpoints[j].Terminating = false, true, true
			}
		}
		svcs = append(svcs, s)
	}
	c := model.DefaultCluster()
	c.ClusterCIDRv6 = netip.MustParsePrefix("fd00:10::/32")
	c.ServiceCIDRv6 = model.DefaultServiceCIDRv6
	c.NodeIP, c.NodeIPv6 = netip.MustParseAddr("192.168.99.1"), netip.MustParseAddr("fd00:99::1")
	return &model.Model{Cluster: c, Services: svcs}, nil
}
