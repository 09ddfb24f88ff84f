package route

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// TestExplainSharesTheCompiledRules: Explain on an oracle built for bulk
// use (no paths) answers as Route does and shows the same rules, in
// order, as an oracle compiled to keep paths, in every mode and family,
// after the bulk oracle routed the same query (the stage memo is its own;
// the IPVS tracer keeps its paths always).
func TestExplainSharesTheCompiledRules(t *testing.T) {
	m := features()
	queries := []Query{
		{Dst: netip.MustParseAddrPort("10.96.0.1:80"), From: FromPod, Src: pod},
		{Dst: netip.MustParseAddrPort("10.96.0.1:80"), From: FromNode},
		{Dst: netip.MustParseAddrPort("192.168.99.1:30002"), From: FromPod, Src: inside},
		{Dst: netip.MustParseAddrPort("192.0.2.4:80"), From: FromPod, Src: outside},
		{Dst: netip.MustParseAddrPort("10.96.0.8:80"), From: FromPod, Src: pod},
		{Dst: netip.MustParseAddrPort("10.96.0.99:81"), From: FromPod, Src: pod},
		{Dst: netip.MustParseAddrPort("[fd00:99::1]:30011"), From: FromPod, Src: inside6},
	}
	for _, mode := range Modes() {
		var bulk, kept []FamilyRules
		for _, f := range model.Families(m.Services) {
			mf := model.ForFamily(*m, f)
			d, err := Rules(&mf, Config{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			r := FamilyRules{Family: f, Rules: d, Node: mf.Cluster.NodeIP}
			bulk = append(bulk, r)
			r.KeepPaths = true
			kept = append(kept, r)
		}
		o, err := FromRules(bulk...)
		if err != nil {
			t.Fatal(err)
		}
		k, err := FromRules(kept...)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			routed, err := o.Route(q)
			if err != nil {
				t.Fatal(err)
			}
			explained, err := o.Explain(q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := k.Route(q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Path) == 0 {
				t.Fatalf("%s %v: the path-keeping oracle kept no path", mode, q.Dst)
			}
			if !slices.Equal(explained.Path, want.Path) {
				t.Errorf("%s %v: Explain's path\n%q\nwant\n%q", mode, q.Dst, explained.Path, want.Path)
			}
			if show(explained) != show(routed) || explained.Verdict != routed.Verdict || (mode != IPVS && routed.Path != nil) {
				t.Errorf("%s %v: Explain %s %s (path %d rules), Route %s %s (path %d rules)", mode, q.Dst, show(explained), explained.Verdict, len(explained.Path),
					show(routed), routed.Verdict, len(routed.Path))
			}
		}
	}
}
