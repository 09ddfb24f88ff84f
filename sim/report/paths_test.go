package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestFairnessShowsPathsSourcesAndDrops: a run over a traffic path says
// where the traffic came from and went to and which source addresses each
// pod saw; a run the rules promise to drop says whether it was dropped, in
// the text and in the Markdown report.
func TestFairnessShowsPathsSourcesAndDrops(t *testing.T) {
	served := results.FairnessRun{Dataplane: "iptables-nft", Service: "demo/etp-local:http", Connections: 10,
		From: "external", Source: "203.0.113.10", Target: "nodePort", Address: "192.168.99.1:30101", Family: "IPv4",
		Endpoints: []results.Endpoint{{Endpoint: "10.244.0.31:8080", Count: 10, Share: 1, Sources: map[string]uint64{"203.0.113.10": 10}}}}
	served.LeftOut = []results.Endpoint{{Endpoint: "10.244.1.31:8080", Count: 0}}
	dropped := served
	dropped.ExpectDropped, dropped.Errors = true, 10
	dropped.Endpoints = []results.Endpoint{{Endpoint: "10.244.1.32:8080"}}
	leaked := dropped
	leaked.Endpoints = []results.Endpoint{{Endpoint: "10.244.1.32:8080", Count: 3}}
	tests := []struct {
		name string
		run  results.FairnessRun
		want []string
	}{
		{"served", served, []string{"from external 203.0.113.10 to nodePort 192.168.99.1:30101 (IPv4)", "203.0.113.10×10", "chi-square", "left out by the rules: 10.244.1.31:8080 served 0"}},
		{"dropped", dropped, []string{"dropped, as the rules promise: no endpoint served any of the 10 connections"}},
		{"not dropped", leaked, []string{"NOT dropped, though the rules promise it: endpoints served 3 of 10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text, md bytes.Buffer
			if err := FairnessTable(&text, &results.Summary{Runs: []results.FairnessRun{tt.run}}); err != nil {
				t.Fatal(err)
			}
			writeFairness(&md, []results.FairnessRun{tt.run}, nil, nil)
			for _, out := range []string{text.String(), md.String()} {
				for _, w := range tt.want {
					if !strings.Contains(strings.ToLower(out), strings.ToLower(w)) {
						t.Errorf("output lacks %q:\n%s", w, out)
					}
				}
			}
			if tt.run.ExpectDropped && strings.Contains(text.String(), "chi-square") {
				t.Errorf("a dropped run reports a chi-square test:\n%s", text.String())
			}
		})
	}
}
