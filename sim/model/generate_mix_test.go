package model

import (
	"math"
	"net/netip"
	"testing"
)

func testMix() *Mix {
	return &Mix{
		Types:           []Weighted[ServiceType]{{ClusterIP, 6}, {NodePort, 3}, {LoadBalancer, 1}},
		Families:        []Weighted[FamilyMix]{{SingleIPv4, 8}, {SingleIPv6, 1}, {DualStack, 1}},
		Endpoints:       []Weighted[int]{{0, 1}, {2, 5}, {7, 4}},
		Ports:           []Weighted[int]{{1, 3}, {2, 1}},
		ExternalLocal:   0.5,
		InternalLocal:   0.1,
		Affinity:        0.2,
		ExternalIPs:     0.05,
		SourceRanges:    0.5,
		RemoteEndpoints: 0.75,
	}
}

func TestMixShares(t *testing.T) {
	const n = 2000
	g, err := NewGenerator(GeneratorConfig{Services: n, Seed: 3, Mix: testMix()})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]float64{}
	total, remote, eps := 0, 0, 0
	seen := map[netip.Addr]string{}
	for i := 0; i < n; i++ {
		s := g.At(i)
		count[string(s.Type)]++
		switch {
		case s.SecondaryClusterIP.IsValid():
			count["dual"]++
		case s.ClusterIP.Is6():
			count["v6"]++
		}
		if s.Affinity.ClientIP {
			count["affinity"]++
		}
		if len(s.Ports) == 2 {
			count["2ports"]++
		}
		if s.Type != ClusterIP && s.ExternalPolicyLocal {
			count["local"]++
		}
		for _, ip := range []netip.Addr{s.ClusterIP, s.SecondaryClusterIP} {
			if prev, dup := seen[ip]; dup && ip.IsValid() {
				t.Fatalf("%s: clusterIP %s also %s", s.Name, ip, prev)
			}
			seen[ip] = s.Name
		}
		for _, e := range s.Endpoints {
			if prev, dup := seen[e.IP]; dup {
				t.Fatalf("%s: endpoint %s also %s", s.Name, e.IP, prev)
			}
			seen[e.IP] = s.Name
			eps++
			if e.Node == RemoteNode {
				remote++
			}
		}
		total += s.EndpointCount() * len(s.Ports)
	}
	if total != g.TotalEndpoints() {
		t.Errorf("TotalEndpoints %d, the services sum to %d", g.TotalEndpoints(), total)
	}
	want := map[string]float64{"ClusterIP": 0.6, "NodePort": 0.3, "LoadBalancer": 0.1, "v6": 0.1, "dual": 0.1, "affinity": 0.2, "2ports": 0.25, "local": 0.2}
	for k, w := range want {
		if got := count[k] / n; math.Abs(got-w) > 0.01 {
			t.Errorf("share of %s: %.3f, want %.2f", k, got, w)
		}
	}
	if got := float64(remote) / float64(eps); math.Abs(got-0.75) > 0.01 {
		t.Errorf("remote endpoints %.3f, want 0.75", got)
	}
}

func TestMixInvalid(t *testing.T) {
	for _, m := range []*Mix{
		{Affinity: 1.5},
		{Types: []Weighted[ServiceType]{{ClusterIP, 0}}},
		{Endpoints: []Weighted[int]{{1, math.NaN()}}},
	} {
		if _, err := NewGenerator(GeneratorConfig{Services: 1, Mix: m}); err == nil {
			t.Errorf("mix %+v accepted", m)
		}
	}
}

// TestMixNodePortsAreUnique: no two ports (or health check node ports) of
// a mixed cluster share a node port, up to the most services a mix can
// make, and one service more is refused.
func TestMixNodePortsAreUnique(t *testing.T) {
	mix := testMix()
	n := mix.MaxServicesWithNodePorts()
	g, err := NewGenerator(GeneratorConfig{Services: n, Seed: 5, Mix: mix})
	if err != nil {
		t.Fatal(err)
	}
	owner := map[int]string{}
	claim := func(port int, who string) {
		if port < 1 || port > 65535 {
			t.Fatalf("%s: node port %d out of range", who, port)
		}
		if prev, ok := owner[port]; ok {
			t.Fatalf("node port %d of %s is %s's already", port, who, prev)
		}
		owner[port] = who
	}
	for i := 0; i < n; i++ {
		s := g.At(i)
		for _, p := range s.Ports {
			if p.NodePort != 0 {
				claim(p.NodePort, s.Name+":"+p.Name)
			}
		}
		if s.HealthCheckNodePort != 0 {
			claim(s.HealthCheckNodePort, s.Name+" health check")
		}
	}
	if len(owner) == 0 {
		t.Fatal("the mix made no node ports")
	}
	if _, err := NewGenerator(GeneratorConfig{Services: n + 1, Seed: 5, Mix: mix}); err == nil {
		t.Errorf("%d services: no error, want the node-port limit", n+1)
	}
}
