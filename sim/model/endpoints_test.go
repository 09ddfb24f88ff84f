package model

import (
	"net/netip"
	"reflect"
	"testing"
)

func ep(ip string, ready, serving, terminating bool) Endpoint {
	return Endpoint{IP: netip.MustParseAddr(ip), Ready: ready, Serving: serving, Terminating: terminating, Node: "n1"}
}

// TestUsableEndpoints follows kube-proxy's CategorizeEndpoints for Cluster
// traffic policy (pkg/proxy/topology.go, v1.37.2 and v1.35.4 agree).
func TestUsableEndpoints(t *testing.T) {
	p := Port{Name: "p", Protocol: TCP, Port: 80, TargetPort: 8080}
	tests := []struct {
		name      string
		endpoints []Endpoint
		want      []string
		count     int
	}{
		{"ready only", []Endpoint{ep("10.0.0.2", true, true, false), ep("10.0.0.10", true, true, false)}, []string{"10.0.0.10:8080", "10.0.0.2:8080"}, 2},
		{"not ready is dropped", []Endpoint{ep("10.0.0.2", true, true, false), ep("10.0.0.3", false, false, false)}, []string{"10.0.0.2:8080"}, 2},
		{"ready beats serving-terminating", []Endpoint{ep("10.0.0.2", true, true, false), ep("10.0.0.3", false, true, true)}, []string{"10.0.0.2:8080"}, 2},
		{"fallback to serving-terminating", []Endpoint{ep("10.0.0.3", false, true, true), ep("10.0.0.4", false, false, true), ep("10.0.0.5", false, true, false)}, []string{"10.0.0.3:8080"}, 3},
		{"nothing usable", []Endpoint{ep("10.0.0.4", false, false, true), ep("10.0.0.5", false, false, false)}, []string{}, 2},
		{"duplicate: running pod wins over terminating", []Endpoint{ep("10.0.0.6", true, true, false), ep("10.0.0.6", false, true, true)}, []string{"10.0.0.6:8080"}, 1},
		{"duplicate: later non-terminating replaces", []Endpoint{ep("10.0.0.6", false, true, true), ep("10.0.0.6", true, true, false)}, []string{"10.0.0.6:8080"}, 1},
		{"none", nil, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{Endpoints: tt.endpoints, Ports: []Port{p}}
			if got := s.UsableEndpointAddrs(p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("UsableEndpointAddrs = %q, want %q", got, tt.want)
			}
			if got := len(s.PortEndpoints(p)); got != tt.count {
				t.Errorf("len(PortEndpoints) = %d, want %d", got, tt.count)
			}
			if got := s.EndpointCount(); got != tt.count {
				t.Errorf("EndpointCount = %d, want %d", got, tt.count)
			}
		})
	}
}

func TestTotalEndpointsCountsNotReady(t *testing.T) {
	two := Port{Name: "a", Protocol: TCP, Port: 80, TargetPort: 80}
	other := Port{Name: "b", Protocol: UDP, Port: 53, TargetPort: 53}
	vip := netip.MustParseAddr("10.96.0.1")
	s := Service{ClusterIP: vip, Ports: []Port{two, other}, Endpoints: []Endpoint{ep("10.0.0.1", true, true, false), ep("10.0.0.2", false, false, false)}}
	if got := TotalEndpoints(Slice{s}); got != 4 {
		t.Fatalf("TotalEndpoints = %d, want 4 (2 endpoints, ready or not, x 2 ports)", got)
	}
	r := Replace(Slice{s}, 0, Service{ClusterIP: vip, Ports: []Port{two}, Endpoints: s.Endpoints[:1]})
	if got := TotalEndpoints(r); got != 1 {
		t.Fatalf("TotalEndpoints after Replace = %d, want 1", got)
	}
	headless := s
	headless.ClusterIP = netip.Addr{}
	if got := TotalEndpoints(Slice{s, headless}); got != 4 {
		t.Fatalf("TotalEndpoints with a headless service = %d, want 4 (kube-proxy counts only the services it proxies)", got)
	}
}

func TestIsLocal(t *testing.T) {
	e := Endpoint{Node: ""}
	if e.IsLocal("") {
		t.Error("an endpoint without a node is local to a nameless node")
	}
	if !ep("10.0.0.1", true, true, false).IsLocal("n1") || ep("10.0.0.1", true, true, false).IsLocal("n2") {
		t.Error("IsLocal compares node names")
	}
}
