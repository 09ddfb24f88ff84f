package plot

import (
	"errors"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
)

// TestOverviewPlotsSayWhatWasTested checks the titles and legends of the
// grouped chart and the cascade: the kernel's counters beside the
// servers', value labels, a drop said to be a drop, keep-alive's two
// tests, and the cascade's rules as counted.
func TestOverviewPlotsSayWhatWasTested(t *testing.T) {
	two := fairnessRun(2, false)
	two.KernelCounter = "iptables DNAT rule packets"
	two.Endpoints[0].Count, two.Endpoints[0].DNAT = 10135, 10135
	other := two
	other.Dataplane = "nftables"
	dropped := results.FairnessRun{Dataplane: "iptables-nft", Service: "demo/lb:http", Connections: 20, Errors: 20, ExpectDropped: true,
		Endpoints: []results.Endpoint{{Pod: "lb-0"}, {Pod: "lb-1"}}}
	p := 0.84
	keep := results.FairnessRun{Dataplane: "iptables-nft", Service: "demo/web:http", Mode: "keepalive", Connections: 25, Requests: 12500,
		ChiSquareP: 1e-6, ConnChiSquareP: &p, KernelCounter: "k",
		Endpoints: []results.Endpoint{{Pod: "web-0", Count: 6500, Share: 0.52, Expected: 0.5, Connections: 13, DNAT: 13}, {Pod: "web-1", Count: 6000, Share: 0.48, Expected: 0.5, Connections: 12, DNAT: 12}}}
	cascade := two
	cascade.Rules = []results.Rule{{Chain: "KUBE-SVC-X", Index: 2, Probability: 0.5, Packets: 10135, Reached: 20000, Observed: 0.50675}, {Chain: "KUBE-SVC-X", Index: 3, Probability: 1, Packets: 9865, Reached: 9865, Observed: 1}}
	tests := []struct {
		name string
		make func() (*gplot.Plot, error)
		want []string
	}{
		{"grouped", func() (*gplot.Plot, error) { return FairnessGrouped([]results.FairnessRun{two, other}) },
			[]string{"across dataplanes (20,000 connections each)", "every dataplane consistent", "iptables-legacy: servers (connections)", "nftables: servers", "the kernel&#39;s own counters", "(10,135)"}},
		{"dropped", func() (*gplot.Plot, error) { return FairnessGrouped([]results.FairnessRun{dropped}) },
			[]string{"dropped, as the rules promise: no endpoint served any of 20 connections"}},
		{"dropped bars", func() (*gplot.Plot, error) { return FairnessBars(dropped) },
			[]string{"dropped, as the rules promise"}},
		{"keep-alive", func() (*gplot.Plot, error) { return FairnessGrouped([]results.FairnessRun{keep}) },
			[]string{"12,500 requests over 25 connections", "requests: chi-square p &lt; 0.0001 (the split is NOT the expected one)", "connections 13 / 12 (the kernel&#39;s choices): p = 0.84 (consistent", "servers (requests)"}},
		{"cascade", func() (*gplot.Plot, error) { return Cascade([]results.FairnessRun{cascade}) },
			[]string{"KUBE-SVC-X", "rule 2 (p = 0.5)", "rule 3 (p = 1)", "took 10,135 of 20,000", "the rule&#39;s probability (from the rules)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			svg := string(svgOf(t, p))
			for _, w := range tc.want {
				if !strings.Contains(svg, w) {
					t.Errorf("svg lacks %q", w)
				}
			}
		})
	}
	if _, err := Cascade([]results.FairnessRun{two}); !errors.Is(err, ErrNoData) {
		t.Errorf("cascade without rules: %v, want ErrNoData", err)
	}
}

func TestReadableTicks(t *testing.T) {
	var labels []string
	for _, tk := range (readableTicks{}).Ticks(0, 650) {
		labels = append(labels, tk.Label)
	}
	if got, want := strings.Join(labels, " "), "0 100 200 300 400 500 600"; got != want {
		t.Errorf("ticks 0..650: %s, want %s", got, want)
	}
	labels = nil
	for _, tk := range (readableTicks{}).Ticks(0, 20000) {
		labels = append(labels, tk.Label)
	}
	if got, want := strings.Join(labels, " "), "0 5,000 10,000 15,000 20,000"; got != want {
		t.Errorf("ticks 0..20000: %s, want %s", got, want)
	}
}
