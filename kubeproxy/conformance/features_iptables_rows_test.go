package conformance

import (
	"net/netip"
	"reflect"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// iptFeatureRows is the iptables feature table: one row per Service
// feature, kube-proxy flag and combination.
func iptFeatureRows() []iptFeatureRow {
	local, remote := "node-1", "node-2"
	two := iptJoin(iptEP(1, local), iptEP(2, remote))
	lb := func(s model.Service) model.Service {
		return iptWith(s, func(s *model.Service) { s.LoadBalancerIPs = iptAddrs("203.0.113.10", "2001:db8::10") })
	}
	etpLocal := func(s model.Service) model.Service {
		return iptWith(s, func(s *model.Service) { s.ExternalPolicyLocal, s.HealthCheckNodePort = true, 32000 })
	}
	itpLocal := func(s model.Service) model.Service {
		return iptWith(s, func(s *model.Service) { s.InternalPolicyLocal = true })
	}
	ranges := func(s model.Service, r ...string) model.Service {
		return iptWith(s, func(s *model.Service) { s.LoadBalancerSourceRanges = iptPrefixes(r...) })
	}
	extIPs := func(s model.Service) model.Service {
		return iptWith(s, func(s *model.Service) { s.ExternalIPs = iptAddrs("198.51.100.7", "2001:db8:1::7") })
	}
	rows := []iptFeatureRow{
		{name: "clusterip", services: model.Slice{iptSvc("a", 1, model.ClusterIP, two...)},
			want: []string{"KUBE-SVC-"}},
		{name: "nodeport", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			want: []string{"KUBE-EXT-", "--dport 30001"}},
		{name: "nodeport-no-endpoints", services: model.Slice{iptSvc("a", 1, model.NodePort)},
			want: []string{"has no endpoints", "--dport 30001 -j REJECT"}},
		{name: "loadbalancer", services: model.Slice{lb(iptSvc("a", 1, model.LoadBalancer, two...))},
			want: []string{"loadbalancer IP", "203.0.113.10"}},
		{name: "loadbalancer-no-endpoints", services: model.Slice{extIPs(lb(iptSvc("a", 1, model.LoadBalancer)))},
			want: []string{"-A KUBE-EXTERNAL-SERVICES", "-d 203.0.113.10 --dport 80 -j REJECT"}},
		{name: "source-ranges", services: model.Slice{ranges(lb(iptSvc("a", 1, model.LoadBalancer, two...)), "203.0.113.0/25", "2001:db8::/64", "198.51.100.1/24")},
			want: []string{"KUBE-FW-", "-s 203.0.113.0/25", "-s 198.51.100.0/24", "will be dropped by KUBE-PROXY-FIREWALL", "traffic not accepted by"}},
		{name: "source-ranges-hold-node-ip", services: model.Slice{ranges(lb(iptSvc("a", 1, model.LoadBalancer, two...)), "192.168.0.0/16", "fd00:1::/64")},
			want: []string{"-s 203.0.113.10 -j KUBE-EXT-"}},
		{name: "source-ranges-allow-all", services: model.Slice{ranges(lb(iptSvc("a", 1, model.LoadBalancer, two...)), "0.0.0.0/0", "::/0", "10.0.0.0/8")},
			want: []string{"loadbalancer IP"}},
		{name: "source-ranges-no-endpoints", services: model.Slice{ranges(lb(iptSvc("a", 1, model.LoadBalancer)), "203.0.113.0/25")},
			want: []string{"has no endpoints"}},
		{name: "external-ips", services: model.Slice{extIPs(iptSvc("a", 1, model.ClusterIP, two...))},
			want: []string{"external IP", "-d 198.51.100.7"}},
		{name: "external-ips-no-endpoints", services: model.Slice{extIPs(iptSvc("a", 1, model.ClusterIP))},
			want: []string{"-A KUBE-EXTERNAL-SERVICES", "-d 198.51.100.7 --dport 80 -j REJECT"}},
		{name: "etp-local", services: model.Slice{etpLocal(lb(iptSvc("a", 1, model.LoadBalancer, two...)))},
			want: []string{"KUBE-SVL-", "pod traffic for", "route LOCAL traffic", "health check node port", "--dport 32000 -j ACCEPT"}},
		{name: "etp-local-nodeport", services: model.Slice{etpLocal(iptSvc("a", 1, model.NodePort, two...))},
			want: []string{"KUBE-SVL-"}},
		{name: "etp-local-no-local-endpoints", services: model.Slice{etpLocal(extIPs(lb(iptSvc("a", 1, model.LoadBalancer, iptEP(2, remote)...))))},
			want: []string{"has no local endpoints", "-j DROP", "health check node port"}},
		{name: "etp-local-no-endpoints", services: model.Slice{etpLocal(lb(iptSvc("a", 1, model.LoadBalancer)))},
			want: []string{"has no endpoints", "health check node port"}},
		{name: "etp-local-source-ranges", services: model.Slice{ranges(etpLocal(lb(iptSvc("a", 1, model.LoadBalancer, two...))), "203.0.113.0/25")},
			want: []string{"KUBE-FW-", "KUBE-SVL-"}},
		{name: "etp-local-clusterip-external-ips", services: model.Slice{etpLocal(extIPs(iptSvc("a", 1, model.ClusterIP, two...)))},
			want: []string{"KUBE-SVL-", "pod traffic for"}},
		{name: "itp-local", services: model.Slice{itpLocal(iptSvc("a", 1, model.ClusterIP, two...))},
			want: []string{"KUBE-SVL-"}},
		{name: "itp-local-no-local-endpoints", services: model.Slice{itpLocal(iptSvc("a", 1, model.ClusterIP, iptEP(2, remote)...))},
			want: []string{"has no local endpoints"}},
		{name: "itp-local-nodeport", services: model.Slice{itpLocal(iptSvc("a", 1, model.NodePort, iptEP(2, remote)...))},
			want: []string{"has no local endpoints", "KUBE-EXT-"}},
		{name: "itp-and-etp-local", services: model.Slice{itpLocal(etpLocal(lb(iptSvc("a", 1, model.LoadBalancer, two...))))},
			want: []string{"KUBE-SVL-"}},
		{name: "terminating-fallback", services: model.Slice{iptSvc("a", 1, model.ClusterIP, iptJoin(iptTerm(1, local), iptTerm(2, remote), iptGone(3, remote))...)},
			want: []string{"10.244.0.1:8080", "10.244.0.2:8080"}},
		{name: "terminating-not-serving", services: model.Slice{iptSvc("a", 1, model.NodePort, iptGone(1, local)...)},
			want: []string{"has no endpoints"}},
		{name: "terminating-ready-mix", services: model.Slice{iptSvc("a", 1, model.ClusterIP, iptJoin(iptTerm(1, local), iptEP(2, remote))...)},
			want: []string{"10.244.0.2:8080"}},
		{name: "etp-local-terminating-local", services: model.Slice{etpLocal(lb(iptSvc("a", 1, model.LoadBalancer, iptJoin(iptTerm(1, local), iptEP(2, remote))...)))},
			want: []string{"KUBE-SVL-"}},
		{name: "itp-local-terminating-local", services: model.Slice{itpLocal(iptSvc("a", 1, model.ClusterIP, iptJoin(iptTerm(1, local), iptEP(2, remote))...))},
			want: []string{"KUBE-SVL-"}},
		{name: "zone-hints", services: model.Slice{iptSvc("a", 1, model.ClusterIP, iptJoin(iptHinted(iptEP(1, local), []string{"zone-a"}, nil), iptHinted(iptEP(2, remote), []string{"zone-b"}, nil))...)},
			want: []string{"10.244.0.1:8080"}},
		{name: "zone-hints-other-zone", services: model.Slice{iptSvc("a", 1, model.ClusterIP, iptJoin(iptHinted(iptEP(1, local), []string{"zone-b"}, nil), iptHinted(iptEP(2, remote), []string{"zone-c"}, nil))...)},
			want: []string{"10.244.0.1:8080", "10.244.0.2:8080"}},
		{name: "zone-hints-incomplete", services: model.Slice{iptSvc("a", 1, model.ClusterIP, iptJoin(iptHinted(iptEP(1, local), []string{"zone-a"}, nil), iptEP(2, remote))...)},
			want: []string{"10.244.0.2:8080"}},
		{name: "node-hints", services: model.Slice{iptWith(iptSvc("a", 1, model.ClusterIP, iptJoin(iptHinted(iptEP(1, local), []string{"zone-b"}, []string{local}), iptHinted(iptEP(2, remote), []string{"zone-a"}, []string{remote}))...),
			func(s *model.Service) { s.TrafficDistribution = "PreferSameNode" })},
			want: []string{"10.244.0.1:8080"}},
		{name: "hints-with-etp-local-terminating", services: model.Slice{etpLocal(lb(iptSvc("a", 1, model.LoadBalancer, iptJoin(iptTerm(1, local), iptHinted(iptEP(2, remote), []string{"zone-a"}, nil), iptHinted(iptEP(3, remote), []string{"zone-b"}, nil))...)))},
			want: []string{"KUBE-SVL-", "10.244.0.2:8080"}},
		{name: "hints-terminating-only", services: model.Slice{iptSvc("a", 1, model.ClusterIP, iptHinted(iptTerm(1, remote), []string{"zone-b"}, nil)...)},
			want: []string{"10.244.0.1:8080"}},
		{name: "affinity-loadbalancer-firewall", services: model.Slice{ranges(lb(iptWith(iptSvc("a", 1, model.LoadBalancer, two...), func(s *model.Service) {
			s.Affinity = model.Affinity{ClientIP: true, Timeout: 600}
		})), "203.0.113.0/25")},
			want: []string{"--rcheck --seconds 600", "KUBE-FW-"}},
		{name: "headless-and-externalname", services: model.Slice{
			iptWith(iptSvc("headless", 1, model.ClusterIP, two...), func(s *model.Service) { s.ClusterIP, s.SecondaryClusterIP = netip.Addr{}, netip.Addr{} }),
			iptWith(iptSvc("ext", 2, model.ExternalName), func(s *model.Service) { s.ClusterIP, s.SecondaryClusterIP = netip.Addr{}, netip.Addr{} }),
			iptSvc("a", 3, model.ClusterIP, two...),
		}, want: []string{"10.96.0.3"}},
		{name: "single-stack-each-family", services: model.Slice{
			iptWith(iptSvc("v4", 1, model.NodePort, two...), func(s *model.Service) { s.SecondaryClusterIP = netip.Addr{} }),
			iptWith(iptSvc("v6", 2, model.NodePort, two...), func(s *model.Service) { s.ClusterIP, s.SecondaryClusterIP = s.SecondaryClusterIP, netip.Addr{} }),
		}, want: []string{"10.96.0.1"}},
		{name: "ipv6-primary-dual-stack", services: model.Slice{
			iptWith(iptSvc("a", 1, model.NodePort, two...), func(s *model.Service) { s.ClusterIP, s.SecondaryClusterIP = s.SecondaryClusterIP, s.ClusterIP }),
		}, want: []string{"10.96.0.1"}},
		{name: "multi-protocol", services: model.Slice{iptWith(iptSvc("a", 1, model.NodePort, two...), func(s *model.Service) {
			s.Ports = append(s.Ports, model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353, NodePort: 30053},
				model.Port{Name: "sctp", Protocol: model.SCTP, Port: 9, TargetPort: 9, NodePort: 30009})
		})}, want: []string{"-m udp -p udp", "-m sctp -p sctp"}},
		{name: "masquerade-all", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			flags: render.Flags{MasqueradeAll: true},
			want:  []string{"--dport 80 -j KUBE-MARK-MASQ"}},
		{name: "no-localhost-nodeports", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			flags: render.Flags{NoLocalhostNodePorts: true},
			want:  []string{"! -d 127.0.0.0/8 -j KUBE-NODEPORTS"}},
		{name: "nodeport-addresses", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			flags: render.Flags{NodePortAddresses: iptPrefixes("192.168.0.0/24", "fd00:1::/64")},
			want:  []string{"-d 192.168.0.2 -j KUBE-NODEPORTS"}},
		{name: "nodeport-addresses-loopback", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			flags: render.Flags{NodePortAddresses: iptPrefixes("127.0.0.0/8", "192.168.0.2/32", "::1/128")},
			want:  []string{"-d 127.0.0.1 -j KUBE-NODEPORTS", "KUBE-FIREWALL"}},
		{name: "nodeport-addresses-loopback-off", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			flags: render.Flags{NodePortAddresses: iptPrefixes("127.0.0.0/8", "192.168.0.2/32"), NoLocalhostNodePorts: true},
			want:  []string{"-d 192.168.0.2 -j KUBE-NODEPORTS"}},
		{name: "nodeport-addresses-zero", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			flags: render.Flags{NodePortAddresses: iptPrefixes("10.0.0.0/8", "0.0.0.0/0")},
			want:  []string{"--dst-type LOCAL -j KUBE-NODEPORTS"}},
		{name: "nodeport-addresses-primary", services: model.Slice{iptSvc("a", 1, model.NodePort, two...)},
			flags: render.Flags{NodePortPrimary: true},
			want:  []string{"-d 192.168.0.2 -j KUBE-NODEPORTS"}},
		{name: "no-node-zone", services: model.Slice{iptSvc("a", 1, model.ClusterIP, iptJoin(iptHinted(iptEP(1, local), []string{"zone-a"}, nil), iptHinted(iptEP(2, remote), []string{"zone-b"}, nil))...)},
			cluster: func(c *model.Cluster) { c.NodeZone = "" },
			want:    []string{"10.244.0.1:8080", "10.244.0.2:8080"}},
	}
	return append(rows, iptFeatureMix(rows))
}

// iptFeatureMix is one cluster holding the services of every row that
// keeps the default cluster settings and flags, renamed and renumbered.
func iptFeatureMix(rows []iptFeatureRow) iptFeatureRow {
	var mix model.Slice
	for _, r := range rows {
		if r.cluster != nil || !reflect.DeepEqual(r.flags, render.Flags{}) {
			continue
		}
		for _, s := range r.services {
			n := len(mix) + 1
			s.Name = "mix" + itoa(n)
			s.ClusterIP, s.SecondaryClusterIP = iptRenumber(s.ClusterIP, n), iptRenumber(s.SecondaryClusterIP, n)
			s.Ports = append([]model.Port(nil), s.Ports...)
			for j := range s.Ports {
				if s.Ports[j].NodePort != 0 {
					s.Ports[j].NodePort = 31000 + 10*n + j
				}
			}
			mix = append(mix, s)
		}
	}
	return iptFeatureRow{name: "mix", services: mix, want: []string{"KUBE-FW-", "KUBE-SVL-", "has no local endpoints"}}
}

// iptRenumber gives a ClusterIP of a's family numbered n (10.96.1.n or
// fd00:30::1:n); an invalid a stays invalid.
func iptRenumber(a netip.Addr, n int) netip.Addr {
	switch {
	case !a.IsValid():
		return a
	case a.Is4():
		return netip.AddrFrom4([4]byte{10, 96, 1, byte(n)})
	}
	return netip.MustParseAddr("fd00:30::1:" + itoa(n))
}
