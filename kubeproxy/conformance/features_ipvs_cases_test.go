package conformance

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// basicCases: service types, addresses and kube-proxy flags.
func basicCases() []featureCase {
	lb := func(s *model.Service) {
		s.LoadBalancerIPs = []netip.Addr{a("203.0.113.10"), a("2001:db8:1::10")}
	}
	ranges := func(rs ...string) func(*model.Service) {
		return func(s *model.Service) {
			lb(s)
			for _, r := range rs {
				s.LoadBalancerSourceRanges = append(s.LoadBalancerSourceRanges, prefix(r))
			}
		}
	}
	ext := func(s *model.Service) { s.ExternalIPs = []netip.Addr{a("198.51.100.7"), a("2001:db8:2::7")} }
	return []featureCase{
		{"clusterip", with(1, model.ClusterIP, nil)},
		{"clusterip-two-ports-udp-sctp", with(2, model.ClusterIP, func(s *model.Service) {
			s.Ports = append(s.Ports, model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353},
				model.Port{Name: "sctp", Protocol: model.SCTP, Port: 9, TargetPort: 9})
		})},
		{"nodeport-tcp-udp-sctp", with(3, model.NodePort, func(s *model.Service) {
			s.Ports = append(s.Ports, model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353, NodePort: 31053},
				model.Port{Name: "sctp", Protocol: model.SCTP, Port: 9, TargetPort: 9, NodePort: 31009})
		})},
		{"headless-and-externalname", func() featureModel {
			h := dual(4, model.ClusterIP)
			h.ClusterIP, h.SecondaryClusterIP, h.Endpoints = netip.Addr{}, netip.Addr{}, eps(4, "node-1")
			x := dual(5, model.ExternalName)
			x.ClusterIP, x.SecondaryClusterIP = netip.Addr{}, netip.Addr{}
			c := dual(6, model.ClusterIP)
			return featureModel{Model: model.Model{Cluster: featureCluster(), Services: model.Slice{h, x, c}}}
		}},
		{"single-stack-ipv4-service", with(7, model.NodePort, func(s *model.Service) { s.SecondaryClusterIP = netip.Addr{} })},
		{"externalips", with(8, model.ClusterIP, ext)},
		{"externalips-affinity", with(9, model.ClusterIP, func(s *model.Service) {
			ext(s)
			s.Affinity = model.Affinity{ClientIP: true, Timeout: 600}
		})},
		{"externalip-is-node-ip", with(10, model.ClusterIP, func(s *model.Service) {
			s.ExternalIPs = []netip.Addr{a("192.168.0.2"), a("fd00:192:168::2")}
		})},
		{"loadbalancer", with(11, model.LoadBalancer, lb)},
		{"loadbalancer-no-node-port", with(12, model.LoadBalancer, func(s *model.Service) { lb(s); s.Ports[0].NodePort = 0 })},
		{"loadbalancer-ip-is-node-ip", with(13, model.LoadBalancer, func(s *model.Service) {
			s.LoadBalancerIPs = []netip.Addr{a("192.168.0.2"), a("fd00:192:168::2")}
		})},
		{"source-ranges-without-node", with(14, model.LoadBalancer, ranges("203.0.113.0/24", "10.20.0.0/16", "2001:db8:9::/48"))},
		{"source-ranges-with-node", with(15, model.LoadBalancer, ranges("192.168.0.0/24", "fd00:192:168::/64", "203.0.113.0/24"))},
		{"source-range-any", with(16, model.LoadBalancer, ranges("0.0.0.0/0", "::/0"))},
		{"shared-loadbalancer-ip", func() featureModel {
			s1, s2 := dual(17, model.LoadBalancer), dual(18, model.LoadBalancer)
			s2.Ports[0].Port = 443
			for _, s := range []*model.Service{&s1, &s2} {
				lb(s)
				s.Endpoints = eps(17, "node-1")
			}
			s2.Endpoints = eps(18, "node-2")
			return featureModel{Model: model.Model{Cluster: featureCluster(), Services: model.Slice{s1, s2}}}
		}},
		{"externalip-and-loadbalancer-two-ports", with(19, model.LoadBalancer, func(s *model.Service) {
			lb(s)
			ext(s)
			s.Ports = append(s.Ports, model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353, NodePort: 31119})
		})},
		{"masquerade-all", withFlags(with(20, model.NodePort, ext), render.Flags{MasqueradeAll: true})},
		{"nodeport-addresses-match", withFlags(with(21, model.NodePort, nil),
			render.Flags{NodePortAddresses: []netip.Prefix{prefix("192.168.0.0/16"), prefix("fd00:192:168::/48")}})},
		{"nodeport-addresses-miss", withFlags(with(22, model.LoadBalancer, func(s *model.Service) {
			lb(s)
			s.ExternalPolicyLocal, s.HealthCheckNodePort = true, 32022
		}), render.Flags{NodePortAddresses: []netip.Prefix{prefix("10.99.0.0/16"), prefix("fd00:99::/64")}})},
		{"nodeport-addresses-one-family", withFlags(with(23, model.NodePort, nil), render.Flags{NodePortAddresses: []netip.Prefix{prefix("10.99.0.0/16")}})},
		{"nodeport-addresses-primary", withFlags(with(24, model.NodePort, nil), render.Flags{NodePortPrimary: true})},
		{"no-localhost-nodeports", withFlags(with(25, model.NodePort, nil), render.Flags{NoLocalhostNodePorts: true})},
		{"scheduler-default-mark-bit", onCluster(with(26, model.ClusterIP, nil), func(c *model.Cluster) { c.MasqueradeBit = 5 })},
	}
}

// policyCases: traffic policies, health checks and terminating endpoints.
func policyCases() []featureCase {
	local := func(s *model.Service) {
		s.LoadBalancerIPs = []netip.Addr{a("203.0.113.30"), a("2001:db8:1::30")}
		s.ExternalIPs = []netip.Addr{a("198.51.100.30"), a("2001:db8:2::30")}
		s.ExternalPolicyLocal, s.HealthCheckNodePort = true, 32030
	}
	remoteOnly := func(s *model.Service) { s.Endpoints = eps(40, "node-2", "node-3") }
	terminating := func(s *model.Service) {
		for i := range s.Endpoints {
			s.Endpoints[i].Ready, s.Endpoints[i].Terminating = false, true
		}
	}
	return []featureCase{
		{"external-local", with(30, model.LoadBalancer, local)},
		{"external-local-no-local-endpoints", with(31, model.LoadBalancer, func(s *model.Service) { local(s); remoteOnly(s) })},
		{"external-local-nodeport", with(32, model.NodePort, func(s *model.Service) { s.ExternalPolicyLocal = true })},
		{"external-local-sctp-udp", with(33, model.NodePort, func(s *model.Service) {
			s.ExternalPolicyLocal = true
			s.Ports = append(s.Ports, model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353, NodePort: 31033},
				model.Port{Name: "sctp", Protocol: model.SCTP, Port: 9, TargetPort: 9, NodePort: 31034})
		})},
		{"external-local-clusterip-externalips", with(34, model.ClusterIP, func(s *model.Service) {
			s.ExternalIPs = []netip.Addr{a("198.51.100.34"), a("2001:db8:2::34")}
			s.ExternalPolicyLocal = true
		})},
		{"internal-local", with(35, model.ClusterIP, func(s *model.Service) { s.InternalPolicyLocal = true })},
		{"internal-local-no-local-endpoints", with(36, model.ClusterIP, func(s *model.Service) { s.InternalPolicyLocal = true; remoteOnly(s) })},
		{"internal-local-nodeport", with(37, model.NodePort, func(s *model.Service) { s.InternalPolicyLocal = true; remoteOnly(s) })},
		{"both-local", with(38, model.LoadBalancer, func(s *model.Service) { local(s); s.InternalPolicyLocal = true })},
		{"terminating-fallback", with(39, model.NodePort, terminating)},
		{"terminating-not-serving", with(40, model.ClusterIP, func(s *model.Service) {
			terminating(s)
			s.Endpoints[0].Serving = false
			s.Endpoints[1].Serving = false
		})},
		{"terminating-local-fallback", with(41, model.LoadBalancer, func(s *model.Service) {
			local(s)
			for i := range s.Endpoints {
				if s.Endpoints[i].Node == "node-1" {
					s.Endpoints[i].Ready, s.Endpoints[i].Terminating = false, true
				}
			}
		})},
		{"terminating-internal-local", with(42, model.ClusterIP, func(s *model.Service) { s.InternalPolicyLocal = true; terminating(s) })},
		{"no-endpoints-external-local", with(43, model.LoadBalancer, func(s *model.Service) { local(s); s.Endpoints = nil })},
		{"not-ready-local-endpoint", with(44, model.NodePort, func(s *model.Service) {
			s.ExternalPolicyLocal = true
			s.Endpoints[0].Ready, s.Endpoints[1].Ready = false, false
		})},
	}
}

// topologyCases: zone and node hints, traffic distribution.
func topologyCases() []featureCase {
	hints := func(zones ...[]string) func(*model.Service) {
		return func(s *model.Service) {
			s.TrafficDistribution = "PreferClose"
			for i := range s.Endpoints {
				z := zones[(i/2)%len(zones)]
				s.Endpoints[i].Zone = z[0]
				s.Endpoints[i].ZoneHints = z
			}
		}
	}
	nodeHints := func(s *model.Service) {
		for i := range s.Endpoints {
			s.Endpoints[i].NodeHints = []string{s.Endpoints[i].Node}
			s.Endpoints[i].ZoneHints = []string{"zone-a"}
		}
	}
	return []featureCase{
		{"zone-hints", with(50, model.ClusterIP, hints([]string{"zone-a"}, []string{"zone-b"}))},
		{"zone-hints-other-zone-only", with(51, model.ClusterIP, hints([]string{"zone-b"}, []string{"zone-c"}))},
		{"zone-hints-partial", with(52, model.NodePort, func(s *model.Service) {
			hints([]string{"zone-a"}, []string{"zone-b"})(s)
			s.Endpoints[3].ZoneHints = nil
		})},
		{"zone-hints-not-ready-without-hint", with(53, model.ClusterIP, func(s *model.Service) {
			hints([]string{"zone-a"}, []string{"zone-b"})(s)
			s.Endpoints[3].ZoneHints, s.Endpoints[3].Ready = nil, false
		})},
		{"node-hints", with(54, model.ClusterIP, nodeHints)},
		{"node-hints-external-local", with(55, model.LoadBalancer, func(s *model.Service) {
			nodeHints(s)
			s.LoadBalancerIPs = []netip.Addr{a("203.0.113.55"), a("2001:db8:1::55")}
			s.ExternalPolicyLocal, s.HealthCheckNodePort = true, 32055
		})},
		{"zone-hints-internal-local", with(56, model.ClusterIP, func(s *model.Service) {
			hints([]string{"zone-b"}, []string{"zone-a"})(s)
			s.InternalPolicyLocal = true
		})},
		{"zone-hints-node-without-zone", onCluster(with(57, model.ClusterIP, hints([]string{"zone-a"}, []string{"zone-b"})),
			func(c *model.Cluster) { c.NodeZone = "" })},
	}
}
