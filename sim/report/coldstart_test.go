package report

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
)

// TestColdStartWords: the time to serve after each restart, and
// kube-proxy's first sync, are said in words in the findings and the
// headline; a restart the window outlasted says so with its bound.
func TestColdStartWords(t *testing.T) {
	served := 3.25
	run := results.TimelineRun{Dataplane: string(dataplane.NFTables), Engine: "kube-proxy", KubeProxyVersion: "1.37", DurationS: 240,
		Events: []results.TimelineEvent{
			{Index: 0, What: "restartKubeProxy on a node without rules (5,000 Services)", AtS: 30, Probe: results.ProbeRestart, Converged: true, ProbeLatencyS: &served,
				After: results.Outcome{Served: 100, TimedOut: 3}},
			{Index: 1, What: "createServices 5000 over 0s", AtS: 90, Probe: results.ProbeCreated},
			{Index: 2, What: "restartKubeProxy on a node without rules (10,000 Services)", AtS: 90, Probe: results.ProbeRestart, After: results.Outcome{TimedOut: 150}},
		},
		Syncs: []results.TimelineSync{
			{AtS: -0.5, DurationS: 0.2, Full: true, Restart: true, Services: 1001},
			{AtS: 30.01, DurationS: 3.1, Full: true, Restart: true, Services: 5001},
			{AtS: 45, DurationS: 0.01},
		},
	}
	tests := []struct {
		name string
		got  string
		want []string
	}{
		{"served", strings.Join(TimelineFindings(run), "\n"), []string{
			`Cold start: after "restartKubeProxy on a node without rules (5,000 Services)" at 30 s, the Service was served again 3.250 s later (time to serve); its first sync of 5,001 Services took 3.100 s; 3 connections timed out and 0 were refused until 90 s.`,
			`Cold start: after "restartKubeProxy on a node without rules (10,000 Services)" at 90 s, the Service was not served again in the 150 s left of the window: time to serve over 150 s; kube-proxy's first sync had not ended when the window did; 150 connections timed out`,
		}},
		{"headline", strings.Join(Headline(&results.Summary{Timelines: []results.TimelineRun{run}}, nil), "\n"), []string{
			"cold start on nftables (engine kube-proxy 1.37): time to serve after kube-proxy's restart 3.25 s at 5,001 Services, over 150 s (its first sync 3.10 / – s)",
		}},
	}
	for _, tt := range tests {
		for _, w := range tt.want {
			if !strings.Contains(tt.got, w) {
				t.Errorf("%s:\n%s\nlacks\n%s", tt.name, tt.got, w)
			}
		}
	}
}
