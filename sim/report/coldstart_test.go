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
			`Cold start: after "restartKubeProxy on a node without rules (10,000 Services)" at 90 s, the Service was not served again before the window ended: time to serve over 150 s; kube-proxy's first sync had not ended when the window did; 150 connections timed out`,
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

// TestLatencyClasses: per kind of event, the probe's changes and
// kube-proxy's observations weighted by their counts; records without
// per-change latencies or counts fall back to the event's largest and the
// syncs' plain mean.
func TestLatencyClasses(t *testing.T) {
	one, two := 1.0, 2.0
	run := results.TimelineRun{Events: []results.TimelineEvent{
		{What: "rollingUpdate default/web", ProbeLatencyS: &two, LatenciesS: []float64{0.5, 1, 2}, KubeProxyLatencyS: []float64{0.2, 0.8}, KubeProxyObserved: 4, KubeProxyMeanS: 0.35},
		{What: "rollingUpdate default/api", ProbeLatencyS: &one, KubeProxyLatencyS: []float64{1}, KubeProxyObserved: 1, KubeProxyMeanS: 1},
		{What: "scale default/web to 0", ProbeLatencyS: &one, KubeProxyLatencyS: []float64{0.4, 0.6}},
	}}
	var b strings.Builder
	writeLatencyClasses(&b, run)
	for _, w := range []string{
		"| rollingUpdate | 2 | 4 | 1.000 | 2.000 | 3 | 5 | 0.480 | 1.000 |",
		"| scale | 1 | 1 | 1.000 | 1.000 | 2 | – | 0.500 | 0.600 |",
	} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("table\n%s\nlacks %s", b.String(), w)
		}
	}
}

// TestLatencyClassesOldRecord: a record without per-event latencies whose
// only probed event takes the run's change latencies.
func TestLatencyClassesOldRecord(t *testing.T) {
	worst := 1.6
	run := results.TimelineRun{ChangeLatenciesS: []float64{0, 0.2, 1.6}, Events: []results.TimelineEvent{{What: "rollingUpdate default/web", ProbeLatencyS: &worst}}}
	var b strings.Builder
	writeLatencyClasses(&b, run)
	if w := "| rollingUpdate | 1 | 3 | 0.200 | 1.600 | 0 | – | – | – |"; !strings.Contains(b.String(), w) {
		t.Errorf("table\n%s\nlacks %s", b.String(), w)
	}
}
