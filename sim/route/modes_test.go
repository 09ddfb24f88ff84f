package route

import (
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// randomCluster is a seeded random cluster of the model's generator: every
// service type, both families, Local policies, affinity, external IPs,
// source ranges, remote endpoints, and endpoints that are terminating
// (serving or not).
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
			case 0:
				e.Ready, e.Serving, e.Terminating = false, true, true
			case 1:
				e.Ready, e.Serving, e.Terminating = false, false, true
			}
		}
		svcs = append(svcs, s)
	}
	c := model.DefaultCluster()
	c.ClusterCIDRv6 = pfx("fd00:10::/32")
	c.ServiceCIDRv6 = model.DefaultServiceCIDRv6
	c.NodeIP, c.NodeIPv6 = node, node6
	return &model.Model{Cluster: c, Services: svcs}
}

// probe is one connection to route.
type probe struct {
	q   Query
	svc *model.Service
}

// probes lists, for every service port of m, connections to each of its
// addresses from a pod, the node and the external client inside and
// outside the source ranges, in each family.
func probes(m *model.Model) []probe {
	var out []probe
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		for _, f := range []model.Family{model.IPv4, model.IPv6} {
			ps := model.ProjectService(s, f)
			if ps.Skipped() {
				continue
			}
			nodeIP, srcs := node, []netip.Addr{ip("10.244.255.1"), ip("203.0.113.1"), ip("198.51.100.10")}
			if f == model.IPv6 {
				nodeIP, srcs = node6, []netip.Addr{ip("fd00:10:244:ffff::2"), ip("2001:db8::1"), ip("3fff::10")}
			}
			for _, p := range ps.Ports {
				dsts := []netip.AddrPort{netip.AddrPortFrom(ps.ClusterIP, uint16(p.Port))}
				if p.NodePort != 0 {
					dsts = append(dsts, netip.AddrPortFrom(nodeIP, uint16(p.NodePort)))
				}
				for _, a := range append(slices.Clone(ps.ExternalIPs), ps.LoadBalancerIPs...) {
					dsts = append(dsts, netip.AddrPortFrom(a, uint16(p.Port)))
				}
				for _, dst := range dsts {
					out = append(out, probe{Query{Dst: dst, From: FromNode}, s})
					for _, src := range srcs {
						out = append(out, probe{Query{Dst: dst, Src: src}, s})
					}
				}
			}
		}
	}
	return out
}

// TestModesAgree routes random clusters through each mode's rules. The
// iptables and nftables modes are documented to agree on every path
// (KEP-3866: the nftables mode keeps the iptables mode's semantics); the
// IPVS mode agrees with them on every service without a Local traffic
// policy (with one, IPVS applies it per virtual server, to every client,
// and falls back to the cluster's endpoints: kubernetes#97081).
// Probabilities are uniform in each mode (the statistic cascade, numgen,
// rr).
func TestModesAgree(t *testing.T) {
	compared, differ := 0, 0
	for seed := uint64(1); seed <= 8; seed++ {
		m := randomCluster(t, seed)
		oracles := map[Mode]*Oracle{}
		for _, mode := range Modes() {
			o, err := New(m, Config{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			oracles[mode] = o
		}
		for _, p := range probes(m) {
			answers := map[Mode]Answer{}
			for mode, o := range oracles {
				a, err := o.Route(p.q)
				if err != nil {
					t.Fatalf("seed %d %s %+v: %v", seed, mode, p.q, err)
				}
				checkUniform(t, mode, p.q, a)
				answers[mode] = a
			}
			compared++
			if show(answers[IPTables]) != show(answers[NFTables]) {
				t.Errorf("seed %d %s %+v: iptables %s, nftables %s", seed, p.svc.Name, p.q, show(answers[IPTables]), show(answers[NFTables]))
			}
			if p.svc.ExternalPolicyLocal || p.svc.InternalPolicyLocal {
				differ += btoi(show(answers[IPTables]) != show(answers[IPVS]))
				continue
			}
			if show(answers[IPTables]) != show(answers[IPVS]) {
				t.Errorf("seed %d %s %+v: iptables %s, ipvs %s", seed, p.svc.Name, p.q, show(answers[IPTables]), show(answers[IPVS]))
			}
		}
	}
	if compared < 1000 || differ == 0 {
		t.Errorf("compared %d connections, %d differ under Local policies: the clusters exercise too little", compared, differ)
	}
	t.Logf("compared %d connections; IPVS differs on %d under Local policies", compared, differ)
}

func checkUniform(t *testing.T, mode Mode, q Query, a Answer) {
	t.Helper()
	for _, e := range a.Endpoints {
		if want := 1 / float64(len(a.Endpoints)); math.Abs(e.Probability-want) > 1e-6 {
			t.Errorf("%s %+v: %s has probability %g, want %g", mode, q, e.Addr, e.Probability, want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
