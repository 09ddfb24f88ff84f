package nftables

import (
	"io"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

// baseStats is what the table itself costs, before any service, per
// layout (layout_test.go).
var baseStats = map[render.KubeProxyVersion]render.Stats{
	"1.34": {Lines: 80, Rules: 23, Chains: 16, Sets: 6},
	"1.36": {Lines: 78, Rules: 22, Chains: 15, Sets: 7},
	"1.37": {Lines: 92, Rules: 22, Chains: 15, Sets: 7},
}

// perService is the key of the per-service expectations below: what one
// service adds depends only on NFTablesDirectDNAT ("1.37": DNAT in the
// service chain, "1.34": endpoint chains).
func perService(v render.KubeProxyVersion) render.KubeProxyVersion {
	if v.NFTablesDirectDNAT() {
		return "1.37"
	}
	return "1.34"
}

func TestBaseCounts(t *testing.T) {
	for _, v := range render.KubeProxyVersions {
		st, err := Render(io.Discard, modelOf(), Options{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		st.Bytes = 0
		if st != baseStats[layout(v)] {
			t.Errorf("%s, empty model: got %+v, want %+v", v, st, baseStats[layout(v)])
		}
	}
}

// TestCountsPerShape pins the exact rules, chains, sets and elements one
// service port of each shape adds, per layout. v1.34: E endpoints give 1+E
// chains and 2E+2 rules, plus affinity (E sets, 2E rules) and NodePort (1
// chain, 2 rules, 1 element). v1.37: one chain and one DNAT rule, a
// hairpin element per local endpoint; endpoint chains (2 rules each) only
// with affinity.
func TestCountsPerShape(t *testing.T) {
	tests := []struct {
		shape string
		want  map[render.KubeProxyVersion]render.Stats // Lines, Rules, Chains, Sets, Elements added by the service
	}{
		{"two-endpoints", map[render.KubeProxyVersion]render.Stats{
			"1.34": {Lines: 14, Rules: 6, Chains: 3, Elements: 2},
			"1.37": {Lines: 7, Rules: 1, Chains: 1, Elements: 4}}},
		{"three-endpoints", map[render.KubeProxyVersion]render.Stats{
			"1.34": {Lines: 18, Rules: 8, Chains: 4, Elements: 2},
			"1.37": {Lines: 8, Rules: 1, Chains: 1, Elements: 5}}},
		{"no-endpoints", map[render.KubeProxyVersion]render.Stats{
			"1.34": {Lines: 2, Elements: 2},
			"1.37": {Lines: 2, Elements: 2}}},
		{"affinity", map[render.KubeProxyVersion]render.Stats{
			"1.34": {Lines: 13, Rules: 6, Chains: 2, Sets: 1, Elements: 2},
			"1.37": {Lines: 12, Rules: 4, Chains: 2, Sets: 1, Elements: 3}}},
		{"nodeport", map[render.KubeProxyVersion]render.Stats{
			"1.34": {Lines: 15, Rules: 6, Chains: 3, Elements: 3},
			"1.37": {Lines: 11, Rules: 3, Chains: 2, Elements: 4}}},
		{"nodeport-no-endpoints", map[render.KubeProxyVersion]render.Stats{
			"1.34": {Lines: 3, Elements: 3},
			"1.37": {Lines: 3, Elements: 3}}},
	}
	for _, v := range render.KubeProxyVersions {
		for _, tt := range tests {
			t.Run(string(v)+"/"+tt.shape, func(t *testing.T) {
				st, err := Render(io.Discard, modelOf(shapes()[tt.shape]), Options{Version: v})
				if err != nil {
					t.Fatal(err)
				}
				base := baseStats[layout(v)]
				got := render.Stats{
					Lines: st.Lines - base.Lines, Rules: st.Rules - base.Rules,
					Chains: st.Chains - base.Chains, Sets: st.Sets - base.Sets, Elements: st.Elements,
				}
				if got != tt.want[perService(v)] {
					t.Errorf("got %+v, want %+v", got, tt.want[perService(v)])
				}
			})
		}
	}
}

// TestMultiPortClusterIPOnce checks kube-proxy's deduplication: a service
// with three ports adds its ClusterIP to cluster-ips once.
func TestMultiPortClusterIPOnce(t *testing.T) {
	svc := twoEndpoints()
	svc.Ports = append(svc.Ports, p80, p80)
	svc.Ports[1].Name, svc.Ports[1].Port = "p81", 81
	svc.Ports[2].Name, svc.Ports[2].Port = "p82", 82
	for _, v := range render.KubeProxyVersions {
		var b stringsBuilder
		if _, err := Render(&b, modelOf(svc), Options{Version: v}); err != nil {
			t.Fatal(err)
		}
		if n := b.count("add element ip kube-proxy cluster-ips { 172.30.0.43 }\n"); n != 1 {
			t.Errorf("%s: cluster-ips element written %d times, want 1", v, n)
		}
		if n := b.count("add element ip kube-proxy service-ips { 172.30.0.43 . tcp . 8"); n != 3 {
			t.Errorf("%s: %d service-ips elements, want 3", v, n)
		}
		// Three ports share target port 80: one hairpin element per endpoint.
		if want := map[render.KubeProxyVersion]int{"1.34": 0, "1.37": 2}[perService(v)]; b.count("add element ip kube-proxy hairpin-connections") != want {
			t.Errorf("%s: %d hairpin elements, want %d", v, b.count("add element ip kube-proxy hairpin-connections"), want)
		}
	}
}

func TestIncrementalCounts(t *testing.T) {
	want := map[render.KubeProxyVersion]render.Stats{
		// 3 endpoint chains + the service chain, re-added and flushed; 2+2·3 rules.
		"1.34": {Lines: 16, Rules: 8, Chains: 4},
		// the new endpoint's hairpin element, the service chain and its DNAT.
		"1.37": {Lines: 4, Rules: 1, Chains: 1, Elements: 1},
	}
	for _, v := range render.KubeProxyVersions {
		m := modelOf(twoEndpoints())
		st, err := RenderIncremental(io.Discard, m, 0, endpoints("10.0.3.4")[0], Options{Version: v})
		if err != nil {
			t.Fatal(err)
		}
		st.Bytes = 0
		if st != want[perService(v)] {
			t.Errorf("%s: got %+v, want %+v", v, st, want[perService(v)])
		}
	}
}

func TestRenderErrors(t *testing.T) {
	bad := twoEndpoints()
	bad.ClusterIP = bad.ClusterIP.Next().Prev() // still valid
	bad.Ports[0].Port = 0
	if _, err := Render(io.Discard, modelOf(bad), Options{}); err == nil {
		t.Error("port 0 accepted")
	}
	v6 := twoEndpoints()
	v6.Endpoints = endpoints("fd00::1")
	if _, err := Render(io.Discard, modelOf(v6), Options{}); err == nil {
		t.Error("IPv6 endpoint accepted in table ip")
	}
	if _, err := RenderIncremental(io.Discard, modelOf(twoEndpoints()), 5, endpoints("10.0.3.9")[0], Options{}); err == nil {
		t.Error("service index out of range accepted")
	}
	if _, err := Render(io.Discard, modelOf(twoEndpoints()), Options{Version: "1.33"}); err == nil {
		t.Error("unsupported kube-proxy version accepted")
	}
	for _, name := range []string{"ns 3", "ns3\nadd table ip x", `ns"3`, "ns3;"} {
		s := twoEndpoints()
		s.Namespace = name
		if _, err := Render(io.Discard, modelOf(s), Options{}); err == nil {
			t.Errorf("namespace %q accepted: it would break the chain name", name)
		}
	}
}
