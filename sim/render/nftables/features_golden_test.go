package nftables

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// featureShapes are the golden shapes of issue 13's features, as dual-stack
// services rendered for each family.
func featureShapes() map[string]model.Service {
	a, p := netip.MustParseAddr, netip.MustParsePrefix
	ep := func(v4, v6, node string, ready, terminating bool, zones ...string) []model.Endpoint {
		var out []model.Endpoint
		for _, ip := range []string{v4, v6} {
			out = append(out, model.Endpoint{IP: a(ip), Ready: ready, Serving: true, Terminating: terminating, Node: node, ZoneHints: zones})
		}
		return out
	}
	eps := func(lists ...[]model.Endpoint) []model.Endpoint {
		var out []model.Endpoint
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	port := model.Port{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30080}
	return map[string]model.Service{
		"loadbalancer-local": {
			Namespace: "ns1", Name: "lb", Type: model.LoadBalancer,
			ClusterIP: a("172.30.0.10"), SecondaryClusterIP: a("fd00:172:30::10"), Ports: []model.Port{port},
			LoadBalancerIPs:          []netip.Addr{a("1.2.3.4"), a("5555::1")},
			ExternalIPs:              []netip.Addr{a("192.168.99.1"), a("2001:db8:99::1")},
			LoadBalancerSourceRanges: []netip.Prefix{p("203.0.113.0/25"), p("2001:db8:203::/64")},
			ExternalPolicyLocal:      true, HealthCheckNodePort: 30000,
			Endpoints: eps(ep("10.180.0.1", "fd00:10:180::1", "test-node", true, false), ep("10.180.0.2", "fd00:10:180::2", "other-node", true, false)),
		},
		"internal-local-topology": {
			Namespace: "ns2", Name: "itp", Type: model.ClusterIP, InternalPolicyLocal: true,
			ClusterIP: a("172.30.0.20"), SecondaryClusterIP: a("fd00:172:30::20"), Ports: []model.Port{{Name: "p80", Protocol: model.UDP, Port: 53, TargetPort: 53}},
			Endpoints: eps(ep("10.180.0.3", "fd00:10:180::3", "test-node", true, false, "zone-b"), ep("10.180.0.4", "fd00:10:180::4", "other-node", true, false, "zone-a")),
		},
		"terminating-affinity-nodeport": {
			Namespace: "ns3", Name: "term", Type: model.NodePort, Affinity: model.Affinity{ClientIP: true, Timeout: 600},
			ClusterIP: a("172.30.0.30"), SecondaryClusterIP: a("fd00:172:30::30"), Ports: []model.Port{port},
			Endpoints: eps(ep("10.180.0.5", "fd00:10:180::5", "test-node", false, true), ep("10.180.0.6", "fd00:10:180::6", "other-node", false, true)),
		},
	}
}

func TestRenderFeatureGolden(t *testing.T) {
	for _, v := range render.KubeProxyVersions {
		for name, svc := range featureShapes() {
			for _, f := range []model.Family{model.IPv4, model.IPv6} {
				t.Run(string(v)+"/"+name+"/"+f.String(), func(t *testing.T) {
					c := kubeProxyCluster()
					c.NodeZone = "zone-a"
					c.ClusterCIDRv6, c.ServiceCIDRv6 = netip.MustParsePrefix("fd00:10::/64"), netip.MustParsePrefix("fd00:172:30::/112")
					m := model.ForFamily(model.Model{Cluster: c, Services: model.Slice{svc}, Family: f}, f)
					var buf bytes.Buffer
					opts := kubeProxyOptions(v)
					opts.SkipBaseChainReset = true
					if _, err := Render(&buf, &m, opts); err != nil {
						t.Fatal(err)
					}
					checkGolden(t, v, name+"-"+f.String()+".nft", buf.Bytes())
				})
			}
		}
	}
}
