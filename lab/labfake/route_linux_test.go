package labfake

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// TestFakeRoutesByItsLoadedRules: the fake's connections land where the
// rules it validated send them, change by change, and each pod sees the
// source those rules leave it, in every dataplane.
func TestFakeRoutesByItsLoadedRules(t *testing.T) {
	ip := netip.MustParseAddr
	ep := func(a, node string, ready bool) model.Endpoint {
		return model.Endpoint{IP: ip(a), Node: node, Ready: ready, Serving: true, Terminating: !ready}
	}
	port := model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30080}
	cluster := model.Service{Namespace: "demo", Name: "cluster", Type: model.NodePort, ClusterIP: ip("10.96.0.1"), Ports: []model.Port{port},
		Endpoints: []model.Endpoint{ep("10.244.0.1", "node-1", true)}}
	local := cluster
	local.Name, local.ClusterIP, local.ExternalPolicyLocal = "local", ip("10.96.0.2"), true
	local.Ports = []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30081}}
	local.Endpoints = []model.Endpoint{ep("10.244.0.2", "node-1", false), ep("10.244.1.2", "node-2", true)}
	c := model.DefaultCluster()
	c.ClusterCIDR, c.NodeIP = netip.MustParsePrefix("10.244.0.0/16"), topo.DefaultNodeIP
	m := &model.Model{Cluster: c, Services: model.Slice{cluster, local}}
	external := ip("203.0.113.10")
	added := ep("10.244.0.3", "node-1", true)
	targets := model.Slice{cluster, local, {Endpoints: []model.Endpoint{added}}}
	tests := []struct {
		name   string
		target string
		src    netip.Addr
		pod    string     // the pod every connection reaches
		seen   netip.Addr // the source it sees
	}{
		{"pod to a NodePort, Cluster policy: masqueraded", "192.168.99.1:30080", netip.Addr{}, "pod-10.244.0.1", topo.DefaultNodeIP},
		{"pod to the ClusterIP: its own address", "10.96.0.1:80", netip.Addr{}, "pod-10.244.0.1", topo.DefaultClientIP},
		{"external to a Local NodePort: the terminating local endpoint, the client's address", "192.168.99.1:30081", external, "pod-10.244.0.2", external},
	}
	for _, name := range []dataplane.Name{dataplane.IPTablesNFT, dataplane.NFTables, dataplane.IPVS, dataplane.EBPF} {
		t.Run(string(name), func(t *testing.T) {
			fake := &Machine{Seed: 1}
			l, err := fake.BuildLab(t.Context(), machine.LabSpec{Prefix: "t", Targets: targets, NodeName: "node-1", NodeIP: topo.DefaultNodeIP, ExternalIPs: []netip.Addr{external}})
			if err != nil {
				t.Fatal(err)
			}
			lab := l.(*Lab)
			dp, err := lab.Dataplane(string(name), apply.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := dp.FullSync(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			for _, tc := range tests {
				before := lab.ServerSources()[tc.pod][tc.seen]
				if _, err := lab.Connect(t.Context(), traffic.Spec{Target: netip.MustParseAddrPort(tc.target), Source: tc.src, Connections: 10}, nil); err != nil {
					t.Fatal(err)
				}
				if got := lab.ServerSources()[tc.pod][tc.seen] - before; got != 10 {
					t.Errorf("%s: %s saw %d of 10 connections from %s; sources %v", tc.name, tc.pod, got, tc.seen, lab.ServerSources())
				}
			}
			if _, err := dp.(*Dataplane).Apply(t.Context(), m, apply.Change{Service: 0, Endpoint: added}); err != nil {
				t.Fatal(err)
			}
			if _, err := lab.Connect(t.Context(), traffic.Spec{Target: netip.MustParseAddrPort("10.96.0.1:80"), Connections: 200}, nil); err != nil {
				t.Fatal(err)
			}
			if n := lab.ServerStats()["pod-10.244.0.3"].Accepted; n == 0 {
				t.Errorf("the endpoint the change added got none of 200 connections")
			}
		})
	}
}
