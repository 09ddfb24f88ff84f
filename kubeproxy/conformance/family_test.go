package conformance

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestDriverRendersEachFamily checks the driver's per-family proxiers: a
// dual-stack service's IPv6 proxier writes its IPv6 ClusterIP and IPv6
// endpoint and nothing of the IPv4 family, and the other way round.
func TestDriverRendersEachFamily(t *testing.T) {
	a := netip.MustParseAddr
	svc := model.Service{
		Namespace: "ns", Name: "dual", Type: model.NodePort,
		ClusterIP: a("172.30.0.10"), SecondaryClusterIP: a("fd00:30::10"),
		Ports:     []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080, NodePort: 30080}},
		Endpoints: []model.Endpoint{{IP: a("10.180.0.1"), Ready: true, Node: "node-1"}, {IP: a("fd00:180::1"), Ready: true, Node: "node-1"}},
	}
	c := model.DefaultCluster()
	c.ClusterCIDRv6 = netip.MustParsePrefix("fd00:180::/48")
	c.ServiceCIDRv6 = netip.MustParsePrefix("fd00:30::/108")
	c.NodeIP, c.NodeIPv6 = nodeIP, a("fd00:1::2")
	for _, mode := range []string{kube.ModeIPTables, kube.ModeNFTables, kube.ModeIPVS} {
		for _, tt := range []struct {
			f          model.Family
			want, miss []string
		}{
			{model.IPv4, []string{"172.30.0.10", "10.180.0.1"}, []string{"fd00:30::10", "fd00:180::1"}},
			{model.IPv6, []string{"fd00:30::10", "fd00:180::1"}, []string{"172.30.0.10", "10.180.0.1"}},
		} {
			t.Run(mode+"/"+tt.f.String(), func(t *testing.T) {
				m := &model.Model{Cluster: c, Services: model.Slice{svc}, Family: tt.f}
				req, err := kube.NewRequest(mode, render.Config{}, m)
				if err != nil {
					t.Fatal(err)
				}
				syncs, err := renderRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				out := syncs[0].Payload + syncs[0].IPVS + syncs[0].IPSet
				for _, w := range tt.want {
					if !strings.Contains(out, w) {
						t.Errorf("%s output lacks %s:\n%s", tt.f, w, out)
					}
				}
				for _, w := range tt.miss {
					if strings.Contains(out, w) {
						t.Errorf("%s output holds %s of the other family", tt.f, w)
					}
				}
			})
		}
	}
}
