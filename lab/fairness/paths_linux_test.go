package fairness

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// TestRouteFollowsKubeProxysPaths: the runner's expectation for each path
// and target kind, as sim/route traces the rules of the dataplane's mode.
func TestRouteFollowsKubeProxysPaths(t *testing.T) {
	ip, pfx := netip.MustParseAddr, netip.MustParsePrefix
	ep := func(a, node string, ready, serving bool) model.Endpoint {
		return model.Endpoint{IP: ip(a), Node: node, Ready: ready, Serving: serving, Terminating: !ready}
	}
	port := model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30080}
	svc := model.Service{Namespace: "demo", Name: "s", Type: model.LoadBalancer, ClusterIP: ip("10.96.0.1"), SecondaryClusterIP: ip("fd00:96::1"),
		Ports: []model.Port{port}, ExternalIPs: []netip.Addr{ip("192.0.2.7")}, LoadBalancerIPs: []netip.Addr{ip("192.0.2.9"), ip("2001:db8:9::9")},
		LoadBalancerSourceRanges: []netip.Prefix{pfx("203.0.113.0/24")},
		Endpoints:                []model.Endpoint{ep("10.244.0.1", "node-1", true, true), ep("10.244.1.1", "node-2", true, true), ep("fd00:244::1", "node-1", true, true)}}
	local := svc
	local.ExternalPolicyLocal = true
	remoteOnly := local
	remoteOnly.Endpoints = []model.Endpoint{ep("10.244.1.1", "node-2", true, true)}
	draining := svc
	draining.Endpoints = []model.Endpoint{ep("10.244.0.1", "node-1", false, true), ep("10.244.0.2", "node-1", false, false)}
	localDraining := local // the local endpoint terminates, the remote one is ready
	localDraining.Endpoints = []model.Endpoint{ep("10.244.0.1", "node-1", false, true), ep("10.244.1.1", "node-2", true, true)}
	internal := svc
	internal.InternalPolicyLocal = true
	internalRemote := internal
	internalRemote.Endpoints = remoteOnly.Endpoints
	internalOnly := internalRemote // ClusterIP type: no cluster endpoints to fall back to
	internalOnly.Type, internalOnly.ExternalIPs, internalOnly.LoadBalancerIPs, internalOnly.LoadBalancerSourceRanges = model.ClusterIP, nil, nil, nil
	ipvs, nft := string(dataplane.IPVS), string(dataplane.NFTables)
	tests := []struct {
		name     string
		dp       string
		svc      model.Service
		paths    scenario.FairnessPaths
		addr     string
		source   string
		expected []string
	}{
		{"pod to ClusterIP", nft, svc, scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetClusterIP},
			"10.96.0.1:80", topo.DefaultClientIP.String(), []string{"10.244.0.1:8080", "10.244.1.1:8080"}},
		{"LB from inside the range", nft, svc, scenario.FairnessPaths{From: scenario.FromExternal, Target: scenario.TargetLoadBalancer},
			"192.0.2.9:80", "203.0.113.1", []string{"10.244.0.1:8080", "10.244.1.1:8080"}},
		{"LB from outside the range is dropped", nft, svc, scenario.FairnessPaths{From: scenario.FromExternalOutsideRange, Target: scenario.TargetLoadBalancer},
			"192.0.2.9:80", "198.51.100.10", nil},
		{"externalIP ignores the ranges", nft, svc, scenario.FairnessPaths{From: scenario.FromExternalOutsideRange, Target: scenario.TargetExternalIP},
			"192.0.2.7:80", "198.51.100.10", []string{"10.244.0.1:8080", "10.244.1.1:8080"}},
		{"NodePort, Local: the local endpoint only", nft, local, scenario.FairnessPaths{From: scenario.FromExternal, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", "203.0.113.1", []string{"10.244.0.1:8080"}},
		{"NodePort, Local, no local endpoint: dropped", nft, remoteOnly, scenario.FairnessPaths{From: scenario.FromExternal, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", "203.0.113.1", nil},
		{"NodePort, Local, the local endpoint terminating: still it", nft, localDraining, scenario.FairnessPaths{From: scenario.FromExternal, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", "203.0.113.1", []string{"10.244.0.1:8080"}},
		{"IPVS NodePort, Local, the local endpoint terminating: still it", ipvs, localDraining, scenario.FairnessPaths{From: scenario.FromExternal, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", "203.0.113.1", []string{"10.244.0.1:8080"}},
		{"node to LB, its address outside the ranges: dropped", nft, svc, scenario.FairnessPaths{From: scenario.FromNode, Target: scenario.TargetLoadBalancer},
			"192.0.2.9:80", "invalid IP", nil},
		{"pod to NodePort, Local: every endpoint", nft, local, scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", topo.DefaultClientIP.String(), []string{"10.244.0.1:8080", "10.244.1.1:8080"}},
		{"all terminating: the serving ones", nft, draining, scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetClusterIP},
			"10.96.0.1:80", topo.DefaultClientIP.String(), []string{"10.244.0.1:8080"}},
		{"IPv6 ClusterIP", nft, svc, scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetClusterIP, Family: model.IPv6},
			"[fd00:96::1]:80", topo.DefaultClientIPv6.String(), []string{"[fd00:244::1]:8080"}},
		{"IPv6 LB from outside (no IPv6 range): admitted", nft, svc, scenario.FairnessPaths{From: scenario.FromExternalOutsideRange, Target: scenario.TargetLoadBalancer, Family: model.IPv6},
			"[2001:db8:9::9]:80", "2001:db8:2::10", []string{"[fd00:244::1]:8080"}},
		{"node to ClusterIP, internal Local: the local endpoint", nft, internal, scenario.FairnessPaths{From: scenario.FromNode, Target: scenario.TargetClusterIP},
			"10.96.0.1:80", "invalid IP", []string{"10.244.0.1:8080"}},
		{"IPVS NodePort, Local, no local endpoint: the cluster's", ipvs, remoteOnly, scenario.FairnessPaths{From: scenario.FromExternal, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", "203.0.113.1", []string{"10.244.1.1:8080"}},
		{"IPVS NodePort, Local: the local endpoint", ipvs, local, scenario.FairnessPaths{From: scenario.FromExternal, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", "203.0.113.1", []string{"10.244.0.1:8080"}},
		{"IPVS pod to NodePort, Local: the local endpoint too", ipvs, local, scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetNodePort},
			"192.168.99.1:30080", topo.DefaultClientIP.String(), []string{"10.244.0.1:8080"}},
		{"IPVS LB from outside the range is dropped", ipvs, local, scenario.FairnessPaths{From: scenario.FromExternalOutsideRange, Target: scenario.TargetLoadBalancer},
			"192.0.2.9:80", "198.51.100.10", nil},
		{"IPVS ClusterIP, internal Local, no local endpoint, reachable from outside: the cluster's", ipvs, internalRemote,
			scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetClusterIP}, "10.96.0.1:80", topo.DefaultClientIP.String(), []string{"10.244.1.1:8080"}},
		{"IPVS ClusterIP, internal Local, no local endpoint, ClusterIP type: dropped", ipvs, internalOnly,
			scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetClusterIP}, "10.96.0.1:80", topo.DefaultClientIP.String(), nil},
		{"ClusterIP, internal Local, no local endpoint: dropped", nft, internalRemote,
			scenario.FairnessPaths{From: scenario.FromPod, Target: scenario.TargetClusterIP}, "10.96.0.1:80", topo.DefaultClientIP.String(), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := model.ProjectService(&tc.svc, tc.paths.Family)
			m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{tc.svc}}
			p := topo.PathsFor(m, model.Slice{tc.svc}, tc.paths)
			oracles, err := oraclesFor(withNodeAddrs(m, p), apply.Settings{}, []string{tc.dp})
			if err != nil {
				t.Fatal(err)
			}
			r, err := routeWith(p, oracles[tc.dp], fairnessTarget{Service: &s, Port: port}, topo.DefaultClientIP, topo.DefaultClientIPv6)
			if err != nil {
				t.Fatal(err)
			}
			if r.Address.String() != tc.addr || r.Source.String() != tc.source || !slices.Equal(r.Expected, tc.expected) || r.Dropped != (tc.expected == nil) {
				t.Fatalf("route %s from %s to %v (dropped %v); want %s from %s to %v", r.Address, r.Source, r.Expected, r.Dropped, tc.addr, tc.source, tc.expected)
			}
		})
	}
}
