package topo

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

func TestPodsForDedupesEndpointIPs(t *testing.T) {
	ep := func(ip string) model.Endpoint { return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true} }
	targets := model.Slice{
		{Name: "web", Ports: []model.Port{{TargetPort: 8080}}, Endpoints: []model.Endpoint{ep("10.244.1.2"), ep("10.244.1.3")}},
		{Name: "web", Namespace: "other", Ports: []model.Port{{TargetPort: 9090}}, Endpoints: []model.Endpoint{ep("10.244.1.3"), ep("10.244.1.4")}},
	}
	pods, ports := PodsFor(targets, "node-1")
	if len(pods) != 3 || pods[0].Name != "web-0" || pods[2].Name != "web-1-2" {
		t.Fatalf("pods %+v", pods)
	}
	if got := ports[1]; len(got) != 2 || got[0] != 8080 || got[1] != 9090 {
		t.Fatalf("shared pod serves %v, want [8080 9090]", got)
	}
}

func TestPodsForPairsFamiliesAndPlacesRemoteEndpoints(t *testing.T) {
	ep := func(ip, node string) model.Endpoint {
		return model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Node: node}
	}
	targets := model.Slice{{Name: "dual", Ports: []model.Port{{TargetPort: 80}}, Endpoints: []model.Endpoint{
		ep("10.244.1.2", "node-1"), ep("10.244.2.2", "node-2"), ep("fd00::2", "node-1"), ep("fd00::3", "node-1"), ep("10.244.1.9", ""),
	}}}
	pods, _ := PodsFor(targets, "node-1")
	want := []struct {
		ip, ip6 string
		remote  bool
	}{
		{"10.244.1.2", "fd00::2", false},           // paired with the first IPv6 endpoint
		{"10.244.2.2", "", true},                   // the second IPv6 endpoint is on another node: not paired
		{"", "fd00::3", false},                     // so it is a pod of its own
		{"10.244.1.9", "fd5c:1ab::af4:109", false}, // no node name: local; a mapped IPv6 address
	}
	if len(pods) != len(want) {
		t.Fatalf("pods %+v, want %d", pods, len(want))
	}
	for i, w := range want {
		p := pods[i]
		if p.IP.String() != w.ip && !(w.ip == "" && !p.IP.IsValid()) || p.OnSecondNode != w.remote {
			t.Errorf("pod %d = %+v, want %+v", i, p, w)
		}
		if w.ip6 != "" && p.IPv6.String() != w.ip6 {
			t.Errorf("pod %d IPv6 = %s, want %s", i, p.IPv6, w.ip6)
		}
	}
	if !pods[1].IPv6.IsValid() {
		t.Errorf("remote IPv4 pod has no mapped IPv6 address: %+v", pods[1])
	}
}
