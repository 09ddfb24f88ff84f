package rendercheck

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
)

// nftScenarios are the rendered models loaded into the kernel.
func nftScenarios(t *testing.T) map[string]*model.Model {
	t.Helper()
	gen := func(services, endpoints int) model.List {
		g, err := model.NewGenerator(model.GeneratorConfig{Services: services, EndpointsPerService: endpoints, Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	c := model.DefaultCluster()
	mixed := model.Slice{
		*gen(1, 3).At(0),
		{Namespace: "ns6", Name: "none", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("10.96.0.46"),
			Ports: []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80, NodePort: 30006}}},
		{Namespace: "ns5", Name: "sticky", Type: model.NodePort, ClusterIP: netip.MustParseAddr("10.96.0.45"),
			Ports:     []model.Port{{Name: "", Protocol: model.UDP, Port: 53, TargetPort: 5353, NodePort: 30005}},
			Affinity:  model.Affinity{ClientIP: true, Timeout: 600},
			Endpoints: []model.Endpoint{{IP: netip.MustParseAddr("10.130.0.5"), Ready: true}, {IP: netip.MustParseAddr("10.130.0.6"), Ready: false}}},
	}
	mixed[1].Type = model.NodePort
	return map[string]*model.Model{
		"1-endpoint":          {Cluster: c, Services: gen(5, 1)},
		"3-endpoints":         {Cluster: c, Services: gen(5, 3)},
		"1000-endpoints":      {Cluster: c, Services: gen(2, 1000)},
		"1000-services":       {Cluster: c, Services: gen(1000, 2)},
		"mixed-shapes":        {Cluster: c, Services: mixed},
		"no-service-cidr-all": {Cluster: model.Cluster{ClusterCIDR: c.ClusterCIDR, MasqueradeBit: 14}, Services: gen(3, 2)},
	}
}

// v135 pins the tests that compare the kernel's listing through sim/nftables
// to the v1.35 layout. TestNFTablesVersionsLoad and
// TestNFTablesVersionsIncremental cover both; TestNFTables137TraceKernel
// parses and traces the kernel's listing of the v1.37 layout.
var v135 = rendernft.Options{Version: render.KubeProxy135}

// nft runs nft in ns with script as standard input.
func nft(t *testing.T, ns string, script []byte, args ...string) []byte {
	t.Helper()
	out, err := netns.Output(ns, script, append([]string{"nft"}, args...)...)
	if err != nil {
		t.Fatalf("nft %v: %v", args, err)
	}
	return out
}

func TestNFTablesScriptsLoad(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	for name, m := range nftScenarios(t) {
		t.Run(name, func(t *testing.T) {
			var script bytes.Buffer
			if _, err := rendernft.Render(&script, m, v135); err != nil {
				t.Fatal(err)
			}
			ns := labtest.ScratchNetns(t)
			nft(t, ns, script.Bytes(), "-c", "-f", "-")
			nft(t, ns, script.Bytes(), "-f", "-")
			nft(t, ns, script.Bytes(), "-f", "-") // a full sync over its own result
			listing := nft(t, ns, nil, "list", "table", "ip", "kube-proxy")
			compareListing(t, script.String(), string(listing))
		})
	}
}

// TestNFTablesIncrementalLoads applies the one-endpoint partial sync over a
// full sync and checks the kernel agrees with a full render of the result.
func TestNFTablesIncrementalLoads(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	for name, m := range nftScenarios(t) {
		if name != "3-endpoints" && name != "mixed-shapes" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ns := labtest.ScratchNetns(t)
			var full, inc bytes.Buffer
			if _, err := rendernft.Render(&full, m, v135); err != nil {
				t.Fatal(err)
			}
			nft(t, ns, full.Bytes(), "-f", "-")
			for i := 0; i < m.Services.Len(); i++ {
				inc.Reset()
				ep := model.Endpoint{IP: netip.AddrFrom4([4]byte{10, 131, 0, byte(i + 1)}), Ready: true}
				if _, err := rendernft.RenderIncremental(&inc, m, i, ep, v135); err != nil {
					t.Fatal(err)
				}
				nft(t, ns, inc.Bytes(), "-f", "-")
				after := withEndpoint(m, i, ep)
				var want bytes.Buffer
				if _, err := rendernft.Render(&want, after, v135); err != nil {
					t.Fatal(err)
				}
				compareListing(t, want.String(), string(nft(t, ns, nil, "list", "table", "ip", "kube-proxy")))
				m = after
			}
		})
	}
}

// withEndpoint returns m with ep added to service i, in memory.
func withEndpoint(m *model.Model, i int, ep model.Endpoint) *model.Model {
	out := make(model.Slice, m.Services.Len())
	for j := range out {
		out[j] = *m.Services.At(j)
		out[j].Endpoints = append([]model.Endpoint(nil), out[j].Endpoints...)
	}
	out[i].Endpoints = append(out[i].Endpoints, ep)
	return &model.Model{Cluster: m.Cluster, Services: out}
}

// compareListing checks that the kernel's listing holds the same chains
// (hook, priority, rule count) and set elements as the rendered script.
func compareListing(t *testing.T, script, listing string) {
	t.Helper()
	want := parseTable(t, "rendered script", script)
	got := parseTable(t, "kernel listing", listing)
	if len(got.Chains) != len(want.Chains) || len(got.Sets) != len(want.Sets) {
		t.Fatalf("kernel has %d chains and %d sets, script %d and %d", len(got.Chains), len(got.Sets), len(want.Chains), len(want.Sets))
	}
	for _, c := range want.Chains {
		k := got.Chain(c.Name)
		if k == nil || k.Hook != c.Hook || k.Priority != c.Priority || len(k.Rules) != len(c.Rules) {
			t.Fatalf("chain %s: kernel has %s", c.Name, describeChain(k))
		}
	}
	for _, s := range want.Sets {
		k := got.Set(s.Name)
		if k == nil || len(k.Elements) != len(s.Elements) {
			t.Fatalf("set %s: kernel differs (%v)", s.Name, k)
		}
		keys := map[string]string{}
		for _, e := range k.Elements {
			keys[e.KeyString()] = fmt.Sprint(e.Value)
		}
		for _, e := range s.Elements {
			if v, ok := keys[e.KeyString()]; !ok || v != fmt.Sprint(e.Value) {
				t.Fatalf("set %s: element %s : %v missing in the kernel", s.Name, e.KeyString(), e.Value)
			}
		}
	}
}

func parseTable(t *testing.T, what, src string) *nftables.Table {
	t.Helper()
	rs, err := nftables.ParseString(src)
	if err != nil {
		t.Fatalf("parse %s: %v", what, err)
	}
	tb := rs.Table("ip", "kube-proxy")
	if tb == nil {
		t.Fatalf("%s has no table ip kube-proxy", what)
	}
	return tb
}

func describeChain(c *nftables.Chain) string {
	if c == nil {
		return "no such chain"
	}
	return fmt.Sprintf("hook %q priority %d and %d rules", c.Hook, c.Priority, len(c.Rules))
}
