package sweep

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

// TestUniformTargets: with a mix, the uniform position probes the IPv4
// ClusterIPs whose first TCP port the rules (traced by sim/route) send to
// an endpoint; IPv6-only services, services without endpoints, an
// internalTrafficPolicy: Local one without a local endpoint and a UDP port
// are left out. Without a mix the picker draws from every service (nil).
func TestUniformTargets(t *testing.T) {
	sc, err := scenario.Parse("uniform.yaml", []byte("name: uniform\nsweep:\n  services: [10]\n"))
	if err != nil {
		t.Fatal(err)
	}
	http := model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}
	dns := model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 53}
	local := model.Endpoint{IP: netip.MustParseAddr("10.128.0.1"), Ready: true, Node: "node-1"}
	remote := model.Endpoint{IP: netip.MustParseAddr("10.128.0.2"), Ready: true, Node: "node-2"}
	local6 := model.Endpoint{IP: netip.MustParseAddr("fd00:10:128::1"), Ready: true, Node: "node-1"}
	svc := func(name, ip, ip2 string, port model.Port, eps ...model.Endpoint) model.Service {
		s := model.Service{Namespace: "t", Name: name, Type: model.ClusterIP, ClusterIP: netip.MustParseAddr(ip), Ports: []model.Port{port}, Endpoints: eps}
		if ip2 != "" {
			s.SecondaryClusterIP = netip.MustParseAddr(ip2)
		}
		return s
	}
	internalLocal := svc("internal-local", "10.96.0.14", "", http, remote)
	internalLocal.InternalPolicyLocal = true
	services := model.Slice{
		svc("ipv4", "10.96.0.10", "", http, local),
		svc("remote", "10.96.0.11", "", http, remote),
		svc("ipv6", "fd00:10:96::12", "", http, local6),
		svc("dual-v6-first", "fd00:10:96::13", "10.96.0.13", http, local, local6),
		internalLocal,
		svc("no-endpoints", "10.96.0.15", "", http),
		svc("udp", "10.96.0.16", "", dns, local),
	}
	m := &model.Model{Cluster: sc.Cluster(), Services: services}
	want := []netip.AddrPort{netip.MustParseAddrPort("10.96.0.10:80"), netip.MustParseAddrPort("10.96.0.11:80"), netip.MustParseAddrPort("10.96.0.13:80")}
	for _, dp := range []string{"iptables-legacy", "nftables"} {
		got, err := uniformTargets(m, true, dp, apply.Settings{})
		if err != nil {
			t.Fatalf("%s: %v", dp, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: targets %v, want %v", dp, got, want)
		}
	}
	if got, err := uniformTargets(m, false, "nftables", apply.Settings{}); got != nil || err != nil {
		t.Errorf("without a mix: %v, %v; want nil (every service)", got, err)
	}
	if _, err := uniformTargets(&model.Model{Cluster: sc.Cluster(), Services: services[2:3]}, true, "nftables", apply.Settings{}); err == nil {
		t.Error("only an IPv6 service: no error, want one naming what to give the mix")
	}
}
