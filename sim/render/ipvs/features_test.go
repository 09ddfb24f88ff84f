package ipvs

import (
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// featureCluster is the fixtures' cluster with a node IP and zone of each
// family.
func featureCluster(f model.Family) model.Cluster {
	c := model.DefaultCluster()
	c.NodeIP, c.NodeZone = ip("192.168.0.2"), "zone-a"
	if f == model.IPv6 {
		c.NodeIP, c.ClusterCIDR = ip("fd00:192:168::2"), netip.MustParsePrefix("fd00:10::/64")
	}
	return c
}

// svcLoadBalancer is a LoadBalancer with two ingress IPs, an external IP,
// source ranges that leave the node out, externalTrafficPolicy Local and
// a health-check node port; one endpoint on this node, one elsewhere.
func svcLoadBalancer(f model.Family) model.Service {
	s := model.Service{
		Namespace: "ns5", Name: "svc5", Type: model.LoadBalancer, ClusterIP: ip("172.30.0.45"),
		Ports:           []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 3005}},
		Endpoints:       append(endpoints("node-1", "10.180.0.5"), endpoints("node-2", "10.180.1.5")...),
		LoadBalancerIPs: []netip.Addr{ip("203.0.113.5"), ip("203.0.113.6")},
		ExternalIPs:     []netip.Addr{ip("198.51.100.5")},
		LoadBalancerSourceRanges: []netip.Prefix{
			netip.MustParsePrefix("203.0.113.0/25"), netip.MustParsePrefix("10.20.0.0/16")},
		ExternalPolicyLocal: true, HealthCheckNodePort: 32005,
	}
	if f == model.IPv6 {
		s.ClusterIP = ip("fd00:172:30::45")
		s.Endpoints = append(endpoints("node-1", "fd00:180::5"), endpoints("node-2", "fd00:180:1::5")...)
		s.LoadBalancerIPs = []netip.Addr{ip("2001:db8:1::5"), ip("2001:db8:1::6")}
		s.ExternalIPs = []netip.Addr{ip("2001:db8:2::5")}
		s.LoadBalancerSourceRanges = []netip.Prefix{netip.MustParsePrefix("fd00:192:168::/64")} // holds the node
	}
	return s
}

// svcTopology has internalTrafficPolicy Local on one port's service and
// zone hints on another.
func svcTopology() []model.Service {
	local := svc3()
	local.Namespace, local.Name, local.ClusterIP = "ns8", "svc8", ip("172.30.0.48")
	local.InternalPolicyLocal = true
	local.Endpoints = append(endpoints("node-2", "10.0.8.2"), endpoints("node-1", "10.0.8.1")...)
	hinted := svc3()
	hinted.Namespace, hinted.Name, hinted.ClusterIP = "ns9", "svc9", ip("172.30.0.49")
	hinted.TrafficDistribution = "PreferClose"
	hinted.Endpoints = append(endpoints("node-2", "10.0.9.2"), endpoints("node-3", "10.0.9.3")...)
	hinted.Endpoints[0].ZoneHints, hinted.Endpoints[1].ZoneHints = []string{"zone-a"}, []string{"zone-b"}
	return []model.Service{local, hinted}
}

func TestFeatureGolden(t *testing.T) {
	v6NodePort := svcNodePort()
	v6NodePort.ClusterIP = ip("fd00:172:30::42")
	v6NodePort.Endpoints = append(endpoints("node-1", "fd00:180::2"), endpoints("node-2", "fd00:180:1::2")...)
	v6SCTP := svcSCTPNodePort()
	v6SCTP.ClusterIP, v6SCTP.Endpoints = ip("fd00:172:30::49"), endpoints("node-1", "fd00:180::9")
	tests := []struct {
		name string
		m    *model.Model
	}{
		{"loadbalancer", &model.Model{Cluster: featureCluster(model.IPv4), Services: model.Slice{svcLoadBalancer(model.IPv4)}}},
		{"ipv6-loadbalancer", &model.Model{Cluster: featureCluster(model.IPv6), Services: model.Slice{svcLoadBalancer(model.IPv6)}, Family: model.IPv6}},
		{"ipv6-nodeport", &model.Model{Cluster: featureCluster(model.IPv6), Services: model.Slice{v6NodePort, v6SCTP}, Family: model.IPv6}},
		{"traffic-policies", &model.Model{Cluster: featureCluster(model.IPv4), Services: model.Slice(svcTopology())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := renderAndReplay(t, tt.m, DefaultOptions())
			compareGolden(t, filepath.Join("testdata", tt.name+".golden"), r.combined)
		})
	}
}

// TestFeatureShapes pins what each feature adds, on top of the goldens.
func TestFeatureShapes(t *testing.T) {
	lb := renderAndReplay(t, &model.Model{Cluster: featureCluster(model.IPv4), Services: model.Slice{svcLoadBalancer(model.IPv4)}}, DefaultOptions())
	v6 := renderAndReplay(t, &model.Model{Cluster: featureCluster(model.IPv6), Services: model.Slice{svcLoadBalancer(model.IPv6)}, Family: model.IPv6}, DefaultOptions())
	tp := renderAndReplay(t, &model.Model{Cluster: featureCluster(model.IPv4), Services: model.Slice(svcTopology())}, DefaultOptions())
	checks := []struct {
		name string
		got  int
		want int
	}{
		// ClusterIP, two ingress IPs, one external IP, the node IP.
		{"LB virtual servers", len(lb.ipvs.services), 5},
		{"LB Local real servers (the local one)", len(lb.ipvs.services["tcp 203.0.113.5:80"].dests), 1},
		{"LB ClusterIP real servers (Cluster internal policy)", len(lb.ipvs.services["tcp 172.30.0.45:80"].dests), 2},
		{"source CIDRs", lb.sets.members("KUBE-LOAD-BALANCER-SOURCE-CIDR"), 4},
		{"node left out: no source IP", lb.sets.members("KUBE-LOAD-BALANCER-SOURCE-IP"), 0},
		{"node left out: out-filter drops", len(lb.ipt.chains["filter KUBE-IPVS-OUT-FILTER"]), 2},
		{"bound addresses", lb.sets.members("KUBE-IPVS-IPS"), 4},
		{"health check port", lb.sets.members("KUBE-HEALTH-CHECK-NODE-PORT"), 1},
		{"IPv6 source CIDR set (name cut to 31)", v6.sets.members("KUBE-6-LOAD-BALANCER-SOURCE-CID"), 2},
		{"IPv6 node inside ranges: source IP", v6.sets.members("KUBE-6-LOAD-BALANCER-SOURCE-IP"), 2},
		{"IPv6 node inside ranges: no drop", len(v6.ipt.chains["filter KUBE-IPVS-OUT-FILTER"]), 0},
		{"internal Local: the local endpoint", len(tp.ipvs.services["tcp 172.30.0.48:80"].dests), 1},
		{"zone hints: zone-a's endpoint", len(tp.ipvs.services["tcp 172.30.0.49:80"].dests), 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	if !strings.Contains(string(v6.combined), "-A KUBE-SERVICES -s ::1/128 -j RETURN\n") {
		t.Error("IPv6 payload lacks the ::1/128 return")
	}
}
