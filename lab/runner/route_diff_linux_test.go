package runner

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
	"github.com/svclab/svclab/sim/scenario"
)

// randomCluster is a seeded random cluster of the model's generator: every
// service type, both families, Local policies, affinity, external IPs,
// source ranges, remote endpoints, and endpoints that are not ready,
// terminating or not serving.
func randomCluster(t *testing.T, seed uint64) *model.Model {
	t.Helper()
	mix := &model.Mix{
		Types:         []model.Weighted[model.ServiceType]{{Value: model.ClusterIP, Weight: 1}, {Value: model.NodePort, Weight: 1}, {Value: model.LoadBalancer, Weight: 1}},
		Families:      []model.Weighted[model.FamilyMix]{{Value: model.SingleIPv4, Weight: 2}, {Value: model.SingleIPv6, Weight: 1}, {Value: model.DualStack, Weight: 2}},
		Endpoints:     []model.Weighted[int]{{Value: 0, Weight: 1}, {Value: 1, Weight: 2}, {Value: 3, Weight: 3}},
		Ports:         []model.Weighted[int]{{Value: 1, Weight: 3}, {Value: 2, Weight: 1}},
		ExternalLocal: 0.5, InternalLocal: 0.3, Affinity: 0.2, ExternalIPs: 0.4, SourceRanges: 0.5, RemoteEndpoints: 0.5,
	}
	g, err := model.NewGenerator(model.GeneratorConfig{Services: 24, EndpointsPerService: 2, Seed: seed, Mix: mix})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var svcs model.Slice
	for i := 0; i < g.Len(); i++ {
		s := *g.At(i)
		s.Endpoints = slices.Clone(s.Endpoints)
		for j := range s.Endpoints {
			e := &s.Endpoints[j]
			switch rng.IntN(6) {
			case 0: // terminating, still serving
				e.Ready, e.Serving, e.Terminating = false, true, true
			case 1: // terminating, no longer serving
				e.Ready, e.Serving, e.Terminating = false, false, true
			}
		}
		svcs = append(svcs, s)
	}
	c := model.DefaultCluster()
	c.ClusterCIDRv6 = netip.MustParsePrefix("fd00:10::/32")
	c.ServiceCIDRv6 = model.DefaultServiceCIDRv6
	return &model.Model{Cluster: c, Services: svcs}
}

// allPaths lists every path a fairness run can take.
func allPaths() []scenario.FairnessPaths {
	var out []scenario.FairnessPaths
	for _, fam := range []model.Family{model.IPv4, model.IPv6} {
		for _, from := range []scenario.Origin{scenario.FromPod, scenario.FromNode, scenario.FromExternal, scenario.FromExternalOutsideRange} {
			if from == scenario.FromNode && fam == model.IPv6 {
				continue // the node client is IPv4 only
			}
			for _, target := range []scenario.TargetKind{scenario.TargetClusterIP, scenario.TargetNodePort, scenario.TargetLoadBalancer, scenario.TargetExternalIP} {
				out = append(out, scenario.FairnessPaths{From: from, Target: target, Family: fam})
			}
		}
	}
	return out
}

// TestRouteAgreesWithTheHandOracle: for random clusters, every dataplane
// and every path, tracing the rendered rules (sim/route) routes each TCP
// service port as the hand-written oracle does.
func TestRouteAgreesWithTheHandOracle(t *testing.T) {
	findings, agreed := map[string]int{}, map[bool]int{}
	defer func() {
		if agreed[false] == 0 || agreed[true] == 0 {
			t.Errorf("agreed on %d routed and %d dropped cases: the clusters exercise nothing", agreed[false], agreed[true])
		}
		t.Logf("agreed on %d routed and %d dropped cases", agreed[false], agreed[true])
		for f, n := range findings {
			t.Logf("%d cases: %s", n, f)
		}
	}()
	for seed := uint64(1); seed <= 16; seed++ {
		m := randomCluster(t, seed)
		for _, name := range dataplane.Names() {
			info, _ := dataplane.Lookup(name)
			mode, _ := route.ModeOf(name)
			o, err := route.New(withNodeAddrs(m, pathsFor(m, nil, scenario.FairnessPaths{})), route.Config{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, fp := range allPaths() {
				p := pathsFor(m, m.Services.(model.Slice), fp)
				for _, s := range m.Services.(model.Slice) {
					s := model.ProjectService(&s, fp.Family)
					for _, port := range s.Ports {
						tgt := fairnessTarget{Service: &s, Port: port}
						old, oerr := p.Route(tgt, info, topo.DefaultClientIP, defaultClientIPv6)
						got, gerr := p.routeWith(o, tgt, topo.DefaultClientIP, defaultClientIPv6)
						if (oerr == nil) != (gerr == nil) {
							t.Errorf("seed %d %s %+v %s: errors differ: hand %v, traced %v", seed, name, fp, tgt.Name(), oerr, gerr)
							continue
						}
						if oerr != nil {
							continue
						}
						if fmt.Sprint(old) == fmt.Sprint(got) {
							agreed[got.Dropped]++
							continue
						}
						if f := handOracleFinding(p, &s, got); f != "" {
							findings[f]++
							continue
						}
						{
							t.Errorf("seed %d %s %s→%s %s %s (%s ext-local %v int-local %v ranges %v):\n hand   %v\n traced %v",
								seed, name, fp.From, fp.Target, fp.Family, tgt.Name(), s.Type, s.ExternalPolicyLocal, s.InternalPolicyLocal, s.LoadBalancerSourceRanges, old, got)
						}
					}
				}
			}
		}
	}
}

// handOracleFinding names a known disagreement between the hand oracle
// and the traced rules where the rules (kube-proxy's, as the renderers
// write them and the conformance suite checks them) are right, "" for
// any other.
func handOracleFinding(p Paths, s *model.Service, traced Route) string {
	if p.From == scenario.FromNode && p.Target == scenario.TargetLoadBalancer && len(s.LoadBalancerSourceRanges) > 0 && traced.Dropped {
		return "the node to a load-balancer IP with source ranges: kube-proxy admits the node only when a range holds its address; the hand oracle let the node through"
	}
	var localReady, localTerminating, ready bool
	for _, e := range s.Endpoints {
		ready = ready || e.Ready
		if e.IsLocal(p.NodeName) {
			localReady = localReady || e.Ready
			localTerminating = localTerminating || (!e.Ready && e.Serving && e.Terminating)
		}
	}
	if (s.ExternalPolicyLocal || s.InternalPolicyLocal) && ready && !localReady && localTerminating {
		return "a Local policy whose only local endpoints are serving and terminating while others are ready: kube-proxy's CategorizeEndpoints falls back to the local terminating ones; the hand oracle dropped"
	}
	return ""
}
