package iptables

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// featureCluster is a dual-stack node-1 in zone-a (192.168.0.2,
// fd00:1::2).
func featureCluster() model.Cluster {
	c := model.DefaultCluster()
	c.NodeZone = "zone-a"
	c.NodeIP, c.NodeIPv6 = netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("fd00:1::2")
	c.ClusterCIDRv6 = netip.MustParsePrefix("fd00:10::/64")
	c.ServiceCIDRv6 = netip.MustParsePrefix("fd00:30::/108")
	return c
}

// dual is a dual-stack LoadBalancer service with a ready endpoint of each
// family on node-1 and on node-2.
func dual() model.Service {
	ip := netip.MustParseAddr
	e := func(a, node string) model.Endpoint {
		return model.Endpoint{IP: ip(a), Ready: true, Serving: true, Node: node}
	}
	return model.Service{
		Namespace: "ns", Name: "web", Type: model.LoadBalancer,
		ClusterIP: ip("10.96.0.10"), SecondaryClusterIP: ip("fd00:30::10"),
		Ports:           []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30080}},
		LoadBalancerIPs: []netip.Addr{ip("203.0.113.10"), ip("2001:db8::10")},
		Endpoints: []model.Endpoint{e("10.244.1.1", "node-1"), e("10.244.2.1", "node-2"),
			e("fd00:10::1:1", "node-1"), e("fd00:10::2:1", "node-2")},
	}
}

func edit(s model.Service, f func(*model.Service)) model.Service { f(&s); return s }

// TestRenderFeatureGolden renders each feature for both families
// (goldens NAME.golden and NAME-ipv6.golden; -update rewrites them).
func TestRenderFeatureGolden(t *testing.T) {
	pfx := netip.MustParsePrefix
	tests := []struct {
		name  string
		svc   model.Service
		flags render.Flags
	}{
		{"loadbalancer", dual(), render.Flags{}},
		{"loadbalancer-source-ranges", edit(dual(), func(s *model.Service) {
			s.LoadBalancerSourceRanges = []netip.Prefix{pfx("192.168.0.0/16"), pfx("2001:db8:1::/48")}
		}), render.Flags{}},
		{"external-ips", edit(dual(), func(s *model.Service) {
			s.Type, s.LoadBalancerIPs, s.ExternalIPs = model.ClusterIP, nil, []netip.Addr{netip.MustParseAddr("198.51.100.7"), netip.MustParseAddr("2001:db8:2::7")}
		}), render.Flags{}},
		{"etp-local", edit(dual(), func(s *model.Service) { s.ExternalPolicyLocal, s.HealthCheckNodePort = true, 32000 }), render.Flags{}},
		{"etp-local-no-local-endpoints", edit(dual(), func(s *model.Service) {
			s.ExternalPolicyLocal, s.HealthCheckNodePort = true, 32000
			s.Endpoints = []model.Endpoint{s.Endpoints[1], s.Endpoints[3]}
		}), render.Flags{}},
		{"itp-local", edit(dual(), func(s *model.Service) { s.Type, s.LoadBalancerIPs, s.InternalPolicyLocal = model.ClusterIP, nil, true }), render.Flags{}},
		{"topology-zone", edit(dual(), func(s *model.Service) {
			s.Type, s.LoadBalancerIPs = model.ClusterIP, nil
			for i := range s.Endpoints {
				s.Endpoints[i].ZoneHints = []string{map[string]string{"node-1": "zone-a", "node-2": "zone-b"}[s.Endpoints[i].Node]}
			}
		}), render.Flags{}},
		{"terminating-fallback", edit(dual(), func(s *model.Service) {
			s.Type, s.LoadBalancerIPs = model.NodePort, nil
			for i := range s.Endpoints {
				s.Endpoints[i].Ready, s.Endpoints[i].Terminating = false, true
			}
		}), render.Flags{}},
		{"nodeport-addresses", edit(dual(), func(s *model.Service) { s.Type, s.LoadBalancerIPs = model.NodePort, nil }),
			render.Flags{NodePortAddresses: []netip.Prefix{pfx("192.168.0.0/24"), pfx("fd00:1::/64")}}},
		{"masquerade-all", edit(dual(), func(s *model.Service) { s.Type, s.LoadBalancerIPs = model.ClusterIP, nil }),
			render.Flags{MasqueradeAll: true}},
		{"headless-skipped", edit(dual(), func(s *model.Service) {
			s.Type, s.LoadBalancerIPs, s.ClusterIP, s.SecondaryClusterIP = model.ClusterIP, nil, netip.Addr{}, netip.Addr{}
		}), render.Flags{}},
	}
	for _, tt := range tests {
		for _, f := range []model.Family{model.IPv4, model.IPv6} {
			name := tt.name
			if f == model.IPv6 {
				name += "-ipv6"
			}
			t.Run(name, func(t *testing.T) {
				m := model.ForFamily(model.Model{Cluster: featureCluster(), Services: model.Slice{tt.svc}}, f)
				opts := DefaultOptions()
				opts.Flags = tt.flags
				checkGolden(t, name, renderString(t, &m, opts))
			})
		}
	}
}

// TestRenderProjectsUnprojectedModels: a dual-stack model rendered for a
// family without model.ForFamily gives the same payload as its projection.
func TestRenderProjectsUnprojectedModels(t *testing.T) {
	for _, f := range []model.Family{model.IPv4, model.IPv6} {
		whole := model.Model{Cluster: featureCluster(), Services: model.Slice{dual()}, Family: f}
		p := model.ForFamily(whole, f)
		if a, b := renderString(t, &whole, DefaultOptions()), renderString(t, &p, DefaultOptions()); a != b {
			t.Errorf("%s: the unprojected model renders differently from its projection:\n%s\n---\n%s", f, a, b)
		}
	}
}

// TestFeaturesParse: every feature's payload, in both families, parses
// with sim/iptables (the tracer's parser), jumps only to chains it
// declares, and prints back to the same rules.
func TestFeaturesParse(t *testing.T) {
	var services model.Slice
	for i, s := range []model.Service{dual(),
		edit(dual(), func(s *model.Service) {
			s.LoadBalancerSourceRanges = []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("fd00:1::/64")}
		}),
		edit(dual(), func(s *model.Service) { s.ExternalPolicyLocal, s.HealthCheckNodePort = true, 32000 }),
		edit(dual(), func(s *model.Service) { s.InternalPolicyLocal = true; s.Endpoints = s.Endpoints[1:2] }),
	} {
		s.Name = "svc" + string(rune('a'+i))
		services = append(services, s)
	}
	for _, f := range []model.Family{model.IPv4, model.IPv6} {
		m := model.ForFamily(model.Model{Cluster: featureCluster(), Services: services}, f)
		text := renderString(t, &m, DefaultOptions())
		dump, err := simipt.ParseString(text)
		if err != nil {
			t.Fatalf("%s: the parser rejects rendered rules: %v", f, err)
		}
		if report := simipt.CheckJumps(dump); report.Err() != nil {
			t.Fatalf("%s: rendered rules jump to missing chains: %v", f, report.Err())
		}
		printed, err := simipt.Canonical(dump.String())
		if err != nil {
			t.Fatal(err)
		}
		rendered, err := simipt.Canonical(text)
		if err != nil {
			t.Fatal(err)
		}
		if printed != rendered {
			t.Fatalf("%s: render → parse → print changed the rules:\n%s", f, golden.Diff(rendered, printed))
		}
	}
}
