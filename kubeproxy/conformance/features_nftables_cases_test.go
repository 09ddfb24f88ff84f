package conformance

import (
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// nftFeatureCases are TestNFTablesFeatures' clusters: one per feature and
// feature combination of issue 13, and kube-proxy flags.
func nftFeatureCases() []nftFeatureCase {
	c := nftFeatureCluster()
	const node, other = "test-node", "other-node"
	lb := nftType(model.LoadBalancer, 3001)
	np := nftType(model.NodePort, 3001)
	twoEPs := []nftSvcOpt{nftEP(1, node, "r"), nftEP(2, other, "r")}
	with := func(base []nftSvcOpt, more ...nftSvcOpt) []nftSvcOpt {
		return append(append([]nftSvcOpt(nil), base...), more...)
	}
	cases := []nftFeatureCase{
		nftOne("clusterip", c, nftSvc(1, twoEPs...)),
		nftOne("clusterip-no-endpoints", c, nftSvc(1)),
		nftOne("nodeport", c, nftSvc(1, with(twoEPs, np)...)),
		nftOne("nodeport-type-without-nodeport", c, nftSvc(1, with(twoEPs, nftType(model.NodePort, 0), nftExtIP(3))...)),
		nftOne("loadbalancer", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1))...)),
		nftOne("loadbalancer-no-endpoints", c, nftSvc(1, lb, nftLBIP(1), nftExtIP(1))),
		nftOne("loadbalancer-two-ips", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftLBIP(2))...)),
		nftOne("source-ranges", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftSourceRanges("203.0.113.0/25", "198.51.100.0/24", "2001:db8:203::/64"))...)),
		nftOne("source-ranges-hold-node-ip", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftLBIP(2), nftSourceRanges("192.168.0.0/16", "2001:db8::/64"))...)),
		nftOne("source-ranges-zero", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftSourceRanges("0.0.0.0/0", "::/0"))...)),
		nftOne("source-ranges-no-lb-ip", c, nftSvc(1, with(twoEPs, lb, nftSourceRanges("203.0.113.0/25", "2001:db8:203::/64"))...)),
		nftOne("source-ranges-no-endpoints", c, nftSvc(1, lb, nftLBIP(1), nftSourceRanges("203.0.113.0/25", "2001:db8:203::/64"))),
		nftOne("external-ips", c, nftSvc(1, with(twoEPs, nftExtIP(1), nftExtIP(2))...)),
		nftOne("external-ips-no-endpoints", c, nftSvc(1, nftExtIP(1))),
		nftOne("external-ips-local", c, nftSvc(1, with(twoEPs, nftExtIP(1), nftETPLocal(0))...)),
		nftOne("etp-local", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftExtIP(1), nftETPLocal(30000))...)),
		nftOne("etp-local-no-local-endpoints", c, nftSvc(1, lb, nftLBIP(1), nftExtIP(1), nftETPLocal(30000), nftEP(2, other, "r"))),
		nftOne("etp-local-nodeport", c, nftSvc(1, with(twoEPs, np, nftETPLocal(30001))...)),
		nftOne("etp-local-source-ranges", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftETPLocal(30000), nftSourceRanges("203.0.113.0/25", "2001:db8:203::/64"))...)),
		nftOne("etp-local-affinity", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftETPLocal(30000), nftAffinity(300), nftEP(3, node, "r"))...)),
		nftOne("etp-local-terminating-local", c, nftSvc(1, np, nftETPLocal(30000), nftEP(1, node, "st"), nftEP(2, other, "r"))),
		nftOne("itp-local", c, nftSvc(1, with(twoEPs, nftITPLocal)...)),
		nftOne("itp-local-no-local-endpoints", c, nftSvc(1, nftITPLocal, nftEP(2, other, "r"))),
		nftOne("itp-local-nodeport", c, nftSvc(1, with(twoEPs, np, nftITPLocal)...)),
		nftOne("itp-local-nodeport-no-local-endpoints", c, nftSvc(1, np, nftITPLocal, nftEP(2, other, "r"))),
		nftOne("itp-etp-local", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftITPLocal, nftETPLocal(30000))...)),
		nftOne("itp-etp-local-none-local", c, nftSvc(1, lb, nftLBIP(1), nftITPLocal, nftETPLocal(30000), nftEP(2, other, "r"))),
		nftOne("itp-local-affinity", c, nftSvc(1, with(twoEPs, nftITPLocal, nftAffinity(0))...)),
		nftOne("terminating-fallback", c, nftSvc(1, np, nftEP(1, node, "st"), nftEP(2, other, "st"), nftEP(3, other, "t"), nftEP(4, other, ""))),
		nftOne("terminating-not-serving", c, nftSvc(1, nftEP(1, node, "t"))),
		nftOne("ready-beats-terminating", c, nftSvc(1, nftEP(1, node, "st"), nftEP(2, other, "r"))),
		nftOne("itp-local-terminating", c, nftSvc(1, nftITPLocal, nftEP(1, node, "st"), nftEP(2, other, "r"))),
		nftOne("topology-zone", c, nftSvc(1, nftEP(1, node, "r", nftZoneHints("zone-a")), nftEP(2, other, "r", nftZoneHints("zone-b")), nftEP(3, other, "r", nftZoneHints("zone-a")))),
		nftOne("topology-zone-none-for-us", c, nftSvc(1, nftEP(1, node, "r", nftZoneHints("zone-b")), nftEP(2, other, "r", nftZoneHints("zone-c")))),
		nftOne("topology-zone-missing-hint", c, nftSvc(1, nftEP(1, node, "r", nftZoneHints("zone-a")), nftEP(2, other, "r"))),
		nftOne("topology-node", c, nftSvc(1, nftEP(1, node, "r", nftNodeHints(node), nftZoneHints("zone-b")), nftEP(2, other, "r", nftNodeHints(other), nftZoneHints("zone-a")))),
		nftOne("topology-etp-local", c, nftSvc(1, lb, nftLBIP(1), nftETPLocal(30000), nftEP(1, node, "r", nftZoneHints("zone-b")), nftEP(2, other, "r", nftZoneHints("zone-a")))),
		nftOne("topology-terminating", c, nftSvc(1, nftEP(1, node, "st", nftZoneHints("zone-a")), nftEP(2, other, "st", nftZoneHints("zone-b")))),
		nftOne("affinity-loadbalancer", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftAffinity(10800), nftSourceRanges("203.0.113.0/25", "2001:db8:203::/64"))...)),
		nftOne("skipped-headless-externalname", c,
			nftSvc(1, twoEPs...),
			func() model.Service {
				s := nftSvc(2, twoEPs...)
				s.ClusterIP, s.SecondaryClusterIP = netip.Addr{}, netip.Addr{}
				return s
			}(),
			func() model.Service { s := nftSvc(3); s.Type = model.ExternalName; return s }()),
		nftOne("single-stack-each", c,
			func() model.Service { s := nftSvc(1, twoEPs...); s.SecondaryClusterIP = netip.Addr{}; return s }(),
			func() model.Service {
				s := nftSvc(2, twoEPs...)
				s.ClusterIP, s.SecondaryClusterIP = s.SecondaryClusterIP, netip.Addr{}
				return s
			}()),
		nftOne("multi-port", c, nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftExtIP(1), nftPorts(
			model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080},
			model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353},
			model.Port{Name: "sctp", Protocol: model.SCTP, Port: 9, TargetPort: 9}))...)),
		{name: "etp-local-loses-local-endpoint", cluster: c, states: []model.Slice{
			{nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftETPLocal(30000))...), nftSvc(2, twoEPs...)},
			{nftSvc(1, lb, nftLBIP(1), nftETPLocal(30000), nftEP(2, other, "r")), nftSvc(2, twoEPs...)},
			{nftSvc(1, lb, nftLBIP(1), nftETPLocal(30000)), nftSvc(2, twoEPs...)},
			{nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftETPLocal(30000))...), nftSvc(2, twoEPs...)},
		}},
		{name: "itp-local-and-terminating-changes", cluster: c, states: []model.Slice{
			{nftSvc(1, with(twoEPs, nftITPLocal, nftExtIP(1))...)},
			{nftSvc(1, nftITPLocal, nftExtIP(1), nftEP(1, node, "st"), nftEP(2, other, "r"))},
			{nftSvc(1, nftITPLocal, nftExtIP(1), nftEP(2, other, "r"))},
			{nftSvc(1, nftITPLocal, nftExtIP(1))},
		}},
		{name: "firewall-service-removed", cluster: c, states: []model.Slice{
			{nftSvc(1, with(twoEPs, lb, nftLBIP(1), nftAffinity(60), nftSourceRanges("203.0.113.0/25", "2001:db8:203::/64"))...), nftSvc(2, twoEPs...)},
			{nftSvc(2, twoEPs...)},
			{nftSvc(2, twoEPs...), nftSvc(3, with(twoEPs, np, nftExtIP(3))...)},
		}},
	}
	return append(cases, nftFlagCases()...)
}

// nftFlagCases vary kube-proxy's flags over a mixed cluster.
func nftFlagCases() []nftFeatureCase {
	const node, other = "test-node", "other-node"
	twoEPs := []nftSvcOpt{nftEP(1, node, "r"), nftEP(2, other, "r")}
	mixed := []model.Service{
		nftSvc(1, twoEPs...),
		nftSvc(2, append(twoEPs, nftType(model.NodePort, 3002))...),
		nftSvc(3, append(twoEPs, nftType(model.LoadBalancer, 3003), nftLBIP(3), nftETPLocal(30003))...),
		nftSvc(4, nftType(model.NodePort, 3004)),
		nftSvc(5, append(twoEPs, nftITPLocal)...),
	}
	prefixes := func(ps ...string) []netip.Prefix {
		var out []netip.Prefix
		for _, p := range ps {
			out = append(out, netip.MustParsePrefix(p))
		}
		return out
	}
	flag := func(name string, set func(*render.Flags)) nftFeatureCase {
		tc := nftOne(name, nftFeatureCluster(), mixed...)
		set(&tc.flags)
		return tc
	}
	noNodeIP := nftFeatureCluster()
	noNodeIP.NodeIP, noNodeIP.NodeIPv6 = netip.Addr{}, netip.Addr{}
	withoutNodeIP := nftOne("nodeport-addresses-without-node-ip", noNodeIP, mixed...)
	withoutNodeIP.flags.NodePortAddresses = prefixes("192.168.0.0/24", "2001:db8::/64")
	return []nftFeatureCase{
		flag("masquerade-all", func(p *render.Flags) { p.MasqueradeAll = true }),
		flag("nodeport-addresses-node", func(p *render.Flags) { p.NodePortAddresses = prefixes("192.168.0.0/24", "2001:db8::/64") }),
		flag("nodeport-addresses-elsewhere", func(p *render.Flags) { p.NodePortAddresses = prefixes("10.1.0.0/16", "fd00:1::/64") }),
		flag("nodeport-addresses-one-family", func(p *render.Flags) { p.NodePortAddresses = prefixes("192.168.0.2/32") }),
		flag("nodeport-addresses-loopback", func(p *render.Flags) { p.NodePortAddresses = prefixes("127.0.0.0/8", "::1/128", "192.168.0.0/24") }),
		flag("nodeport-addresses-zero", func(p *render.Flags) { p.NodePortAddresses = prefixes("192.168.0.0/24", "0.0.0.0/0", "::/0") }),
		flag("nodeport-addresses-primary", func(p *render.Flags) { p.NodePortPrimary = true }),
		flag("no-localhost-nodeports", func(p *render.Flags) { p.NoLocalhostNodePorts = true }),
		withoutNodeIP,
	}
}
