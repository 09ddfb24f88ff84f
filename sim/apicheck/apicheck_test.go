package apicheck

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

func svc(ns, name, ip string, ports ...model.Port) model.Service {
	s := model.Service{Namespace: ns, Name: name, Type: model.ClusterIP, Ports: ports}
	if ip != "" {
		s.ClusterIP = netip.MustParseAddr(ip)
	}
	return s
}

var http = model.Port{Name: "http", Protocol: model.TCP, Port: 80}

func TestService(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     model.Service
		where Where
		want  string // "" for no problem
	}{
		{"valid", svc("demo", "web", "10.96.0.10", http), 0, ""},
		{"namespace with a newline", svc("de\nmo", "web", "10.96.0.10", http), AtNamespace, `"de\nmo"`},
		{"name with a quote", svc("demo", `w"b`, "10.96.0.10", http), AtName, "DNS-1035"},
		{"name too long", svc("demo", strings.Repeat("a", 64), "10.96.0.10", http), AtName, "63 characters"},
		{"loopback clusterIP", svc("demo", "web", "127.0.0.1", http), AtClusterIP, "loopback"},
		{"broadcast clusterIP", svc("demo", "web", "255.255.255.255", http), AtClusterIP, "broadcast"},
		{"IPv6 link-local clusterIP", svc("demo", "web", "fe80::1", http), AtClusterIP, "link-local"},
		{"port name with a quote", svc("demo", "web", "10.96.0.10", model.Port{Name: `h"p`, Protocol: model.TCP, Port: 80}), AtPortName, "alpha-numeric"},
		{"duplicate port names", svc("demo", "web", "10.96.0.10", http, model.Port{Name: "http", Protocol: model.TCP, Port: 81}), AtPortName, "also used by ports[0]"},
		{"duplicate port and protocol", svc("demo", "web", "10.96.0.10", http, model.Port{Name: "b", Protocol: model.TCP, Port: 80}), AtPort, "80/TCP is also ports[0]"},
		{"unnamed port among several", svc("demo", "web", "10.96.0.10", http, model.Port{Protocol: model.TCP, Port: 81}), AtPortName, "must name each port"},
		{"nodePort on a ClusterIP service", svc("demo", "web", "10.96.0.10", model.Port{Name: "http", Protocol: model.TCP, Port: 80, NodePort: 30080}), AtNodePort, "type ClusterIP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := Service(&tc.s)
			if tc.want == "" {
				if len(ps) != 0 {
					t.Fatalf("problems %+v, want none", ps)
				}
				return
			}
			if len(ps) == 0 || ps[0].Where != tc.where || !strings.Contains(ps[0].Msg, tc.want) {
				t.Fatalf("problems %+v, want one at %d containing %q", ps, tc.where, tc.want)
			}
			if strings.ContainsAny(ps[0].Msg, "\n\x00") {
				t.Errorf("message %q holds raw input", ps[0].Msg)
			}
		})
	}
}

func TestSetAndEndpoints(t *testing.T) {
	set := NewSet()
	a := svc("demo", "a", "10.96.0.10", model.Port{Name: "http", Protocol: model.TCP, Port: 80, NodePort: 30080})
	a.Type = model.NodePort
	b := a
	b.Name = "b"
	if ps := set.Add("Service demo/a", &a); len(ps) != 0 {
		t.Fatalf("first service: %+v", ps)
	}
	ps := set.Add("Service demo/b", &b)
	if len(ps) != 2 || ps[0].Where != AtClusterIP || ps[1].Where != AtNodePort || !strings.Contains(ps[0].Msg, "Service demo/a") {
		t.Fatalf("second service with the same clusterIP and nodePort: %+v", ps)
	}
	eps := []model.Endpoint{
		{IP: netip.MustParseAddr("10.244.1.2")},
		{IP: netip.MustParseAddr("10.244.1.2")},
		{IP: netip.MustParseAddr("10.96.0.10")},
		{IP: netip.MustParseAddr("224.0.0.1")},
		{IP: netip.MustParseAddr("10.244.1.3"), Node: "Node_1"},
	}
	want := []struct {
		where Where
		index int
		msg   string
	}{{AtEndpoint, 1, "also endpoints[0]"}, {AtEndpoint, 2, "clusterIP of Service demo/a"}, {AtEndpoint, 3, "multicast"}, {AtEndpointNode, 4, "node name"}}
	got := Endpoints(eps, set)
	if len(got) != len(want) {
		t.Fatalf("problems %+v, want %d", got, len(want))
	}
	for i, w := range want {
		if got[i].Where != w.where || got[i].Index != w.index || !strings.Contains(got[i].Msg, w.msg) {
			t.Errorf("problem %d: %+v, want %+v", i, got[i], w)
		}
	}
}

func TestExcerptAndOneLine(t *testing.T) {
	if got := Excerpt(strings.Repeat("é", 100)); len(got) > 6*maxExcerpt+20 || !strings.Contains(got, "(200 bytes)") {
		t.Errorf("Excerpt of 200 bytes: %q", got)
	}
	if got := OneLine("a\nb\x00c\u202ed"); got != `a\nb\x00c\u202ed` {
		t.Errorf("OneLine: %q", got)
	}
	if Show("demo/web") != "demo/web" || Show("de mo") != `"de mo"` {
		t.Errorf("Show: %q %q", Show("demo/web"), Show("de mo"))
	}
}
