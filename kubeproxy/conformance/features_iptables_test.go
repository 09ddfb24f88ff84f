package conformance

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
)

// iptFeatureRow is one hand-made cluster of the iptables feature table:
// rendered by kube-proxy and natively for each family, compared after the
// canonical sort. want are texts kube-proxy's IPv4 payload must hold, so
// that a row cannot pass without exercising its feature.
type iptFeatureRow struct {
	name     string
	services model.Slice
	cluster  func(*model.Cluster)
	flags    render.Flags
	want     []string
}

// TestIPTablesFeatures: every Service feature and kube-proxy flag, alone
// and combined, both families.
func TestIPTablesFeatures(t *testing.T) {
	for _, row := range iptFeatureRows() {
		for _, f := range []model.Family{model.IPv4, model.IPv6} {
			t.Run(row.name+"/"+f.String(), func(t *testing.T) {
				m := iptFeatureModel(row, f)
				kp, native := iptRenderBoth(t, m, row.flags)
				if f == model.IPv4 {
					for _, w := range row.want {
						if !strings.Contains(kp, w) {
							t.Errorf("kube-proxy's payload lacks %q: the row does not exercise its feature\n%s", w, kp)
						}
					}
				}
				d, err := diffRestore(kp, native)
				if err != nil {
					t.Fatal(err)
				}
				if d != "" {
					t.Errorf("native iptables differs from kube-proxy %s:\n%s", nativeVersion(), d)
				}
			})
		}
	}
}

// iptFeatureModel is row's cluster as family f's proxier gets it.
func iptFeatureModel(row iptFeatureRow, f model.Family) *model.Model {
	c := iptFeatureCluster()
	if row.cluster != nil {
		row.cluster(&c)
	}
	return &model.Model{Cluster: c, Services: row.services, Family: f}
}

// iptRenderBoth returns kube-proxy's first-sync payload for m and the native
// renderer's for m's projection onto its family, both with flags.
func iptRenderBoth(t *testing.T, m *model.Model, flags render.Flags) (string, string) {
	t.Helper()
	req, err := kube.NewRequest(kube.ModeIPTables, render.Config{Flags: flags}, m)
	if err != nil {
		t.Fatal(err)
	}
	syncs, err := renderRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	p := model.ForFamily(*m, m.Family)
	var buf bytes.Buffer
	if _, err := rendipt.Render(&buf, &p, iptablesOptions(flags)); err != nil {
		t.Fatal(err)
	}
	return syncs[0].Payload, buf.String()
}

// iptFeatureCluster is a dual-stack node "node-1" in zone-a.
func iptFeatureCluster() model.Cluster {
	c := model.DefaultCluster()
	c.NodeZone = "zone-a"
	c.NodeIP = netip.MustParseAddr("192.168.0.2")
	c.NodeIPv6 = netip.MustParseAddr("fd00:1::2")
	c.ClusterCIDRv6 = netip.MustParsePrefix("fd00:10::/64")
	c.ServiceCIDRv6 = netip.MustParsePrefix("fd00:30::/108")
	return c
}

// iptSvc is a dual-stack service ns/NAME (ClusterIP 10.96.0.N and
// fd00:30::N) with one TCP port 80 → 8080, NodePort 30000+N when typed so.
func iptSvc(name string, n int, typ model.ServiceType, eps ...model.Endpoint) model.Service {
	s := model.Service{
		Namespace: "ns", Name: name, Type: typ,
		ClusterIP:          netip.AddrFrom4([4]byte{10, 96, 0, byte(n)}),
		SecondaryClusterIP: netip.MustParseAddr("fd00:30::" + itoa(n)),
		Ports:              []model.Port{{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}},
		Endpoints:          eps,
	}
	if typ == model.NodePort || typ == model.LoadBalancer {
		s.Ports[0].NodePort = 30000 + n
	}
	return s
}

// iptEP is a ready endpoint pair of both families (10.244.0.N and
// fd00:10::N) on node; iptTerm is a serving, terminating pair; iptGone a
// terminating pair that no longer serves.
func iptEP(n int, node string) []model.Endpoint {
	return iptPair(n, node, model.Endpoint{Ready: true, Serving: true})
}

func iptTerm(n int, node string) []model.Endpoint {
	return iptPair(n, node, model.Endpoint{Serving: true, Terminating: true})
}

func iptGone(n int, node string) []model.Endpoint {
	return iptPair(n, node, model.Endpoint{Terminating: true})
}

func iptPair(n int, node string, cond model.Endpoint) []model.Endpoint {
	a, b := cond, cond
	a.IP, a.Node = netip.AddrFrom4([4]byte{10, 244, 0, byte(n)}), node
	b.IP, b.Node = netip.MustParseAddr("fd00:10::"+itoa(n)), node
	return []model.Endpoint{a, b}
}

func iptJoin(eps ...[]model.Endpoint) []model.Endpoint {
	var out []model.Endpoint
	for _, e := range eps {
		out = append(out, e...)
	}
	return out
}

// iptHinted sets zone and node hints on eps.
func iptHinted(eps []model.Endpoint, zones, nodes []string) []model.Endpoint {
	for i := range eps {
		eps[i].ZoneHints, eps[i].NodeHints = zones, nodes
	}
	return eps
}

func iptAddrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}

func iptPrefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// iptWith applies f to a copy of s.
func iptWith(s model.Service, f func(*model.Service)) model.Service {
	f(&s)
	return s
}
