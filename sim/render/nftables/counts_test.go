package nftables

import (
	"io"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

// baseStats is what the table itself costs, before any service.
var baseStats = render.Stats{Lines: 80, Rules: 23, Chains: 16, Sets: 6}

func TestBaseCounts(t *testing.T) {
	st, err := Render(io.Discard, modelOf(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Bytes = 0
	if st != baseStats {
		t.Fatalf("empty model: got %+v, want %+v", st, baseStats)
	}
}

// TestCountsPerShape pins the exact rules, chains, sets and elements one
// service port of each shape adds (E endpoints: 1+E chains, 2E+2 rules,
// plus affinity (E sets, 2E rules) and NodePort (1 chain, 2 rules, 1 element)).
func TestCountsPerShape(t *testing.T) {
	tests := []struct {
		shape string
		want  render.Stats // Lines, Rules, Chains, Sets, Elements added by the service
	}{
		{"two-endpoints", render.Stats{Lines: 14, Rules: 6, Chains: 3, Elements: 2}},
		{"three-endpoints", render.Stats{Lines: 18, Rules: 8, Chains: 4, Elements: 2}},
		{"no-endpoints", render.Stats{Lines: 2, Elements: 2}},
		{"affinity", render.Stats{Lines: 13, Rules: 6, Chains: 2, Sets: 1, Elements: 2}},
		{"nodeport", render.Stats{Lines: 15, Rules: 6, Chains: 3, Elements: 3}},
		{"nodeport-no-endpoints", render.Stats{Lines: 3, Elements: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.shape, func(t *testing.T) {
			st, err := Render(io.Discard, modelOf(shapes()[tt.shape]), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := render.Stats{
				Lines: st.Lines - baseStats.Lines, Rules: st.Rules - baseStats.Rules,
				Chains: st.Chains - baseStats.Chains, Sets: st.Sets - baseStats.Sets, Elements: st.Elements,
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestIncrementalCounts(t *testing.T) {
	m := modelOf(twoEndpoints())
	st, err := RenderIncremental(io.Discard, m, 0, endpoints("10.0.3.4")[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 3 endpoint chains + the service chain, re-added and flushed; 2+2·3 rules.
	want := render.Stats{Lines: 16, Rules: 8, Chains: 4}
	st.Bytes = 0
	if st != want {
		t.Fatalf("got %+v, want %+v", st, want)
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
}
