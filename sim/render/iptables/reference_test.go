package iptables

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestMatchesKubeProxyOutput compares the rendered two-endpoint example with
// kube-proxy's own output (testdata/kube-proxy-reference.txt, from
// TestSyncProxyRulesRepeated @531be81) after kube-proxy's canonical sort.
// The reference is a partial sync of a fixture with more services: its
// KUBE-SERVICES rules for ns1/svc1 and ns4/svc4 belong to services this
// model does not have, so they are dropped before comparing. The fixture's
// mark is written 0x4000; svclab writes kube-proxy's real %#08x form.
func TestMatchesKubeProxyOutput(t *testing.T) {
	raw, err := os.ReadFile("testdata/kube-proxy-reference.txt")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, `"ns1/svc1:p80 cluster IP"`) || strings.Contains(line, `"ns4/svc4:p80 cluster IP"`) {
			continue
		}
		kept = append(kept, line)
	}
	want, err := simipt.Canonical(strings.Join(kept, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Version: render.KubeProxy135, NFAcct: true, LargeClusterThreshold: 1000} // the fixture: nfacct on, no --random-fully
	got := renderString(t, testModel(svc("ns3", "svc3", "172.30.0.43", "10.0.3.2", "10.0.3.3")), opts)
	got = strings.ReplaceAll(got, "0x00004000", "0x4000")
	gotSorted, err := simipt.Canonical(got)
	if err != nil {
		t.Fatal(err)
	}
	if gotSorted != want {
		t.Fatalf("rendered payload differs from kube-proxy's after the canonical sort:\n%s", golden.Diff(want, gotSorted))
	}
}

// TestRoundTrip: render → parse → print gives the same rules after the
// canonical sort, for every service shape.
func TestRoundTrip(t *testing.T) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 50, EndpointsPerService: 3, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	shapes := model.Slice{
		withAffinity(svc("ns5", "svc5", "172.30.0.45", "10.180.0.3", "10.180.0.4")),
		withNodePort(svc("ns3", "svc3", "172.30.0.43", "10.0.3.2"), 3003),
		svc("ns6", "svc6", "172.30.0.46"),
	}
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Place(shapes, gen, model.Position{Kind: model.PositionMiddle})}
	for _, opts := range []Options{DefaultOptions(), {NFAcct: true, LargeClusterThreshold: 10}} {
		var b bytes.Buffer
		if _, err := Render(&b, m, opts); err != nil {
			t.Fatal(err)
		}
		dump, err := simipt.ParseString(b.String())
		if err != nil {
			t.Fatalf("the parser rejects rendered rules: %v", err)
		}
		if report := simipt.CheckJumps(dump); report.Err() != nil {
			t.Fatalf("rendered rules jump to missing chains: %v", report.Err())
		}
		printed, err := simipt.Canonical(dump.String())
		if err != nil {
			t.Fatal(err)
		}
		rendered, err := simipt.Canonical(b.String())
		if err != nil {
			t.Fatal(err)
		}
		if printed != rendered {
			t.Fatalf("render → parse → print changed the rules:\n%s", golden.Diff(rendered, printed))
		}
	}
}
