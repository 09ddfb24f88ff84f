package report

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

func secondsPtr(v float64) *float64 { return &v }

// TestTimelineFindings: the words a report says about each event.
func TestTimelineFindings(t *testing.T) {
	tests := []struct {
		name  string
		event results.TimelineEvent
		want  string
	}{
		{"stale for the whole interval (v1.35)",
			results.TimelineEvent{What: "scale default/statsd to 0", AtS: 5, Probe: results.ProbeRemoved, Converged: true, ProbeLatencyS: secondsPtr(40.1), After: results.Outcome{Blackholed: 20000}},
			"traffic kept reaching deleted pods' addresses (20000) or removed endpoints (0) for the whole 40 s until the next event"},
		{"cleared at the next sync (v1.37)",
			results.TimelineEvent{What: "scale default/statsd to 0", AtS: 5, Probe: results.ProbeRemoved, Converged: true, ProbeLatencyS: secondsPtr(0.681), After: results.Outcome{Blackholed: 343}},
			"the new state was reached in 0.681 s (last delivered to a removed endpoint); 343 blackholed and 0 misdelivered before it"},
		{"never left (native)",
			results.TimelineEvent{What: "scale default/statsd to 0", AtS: 5, Probe: results.ProbeRemoved, After: results.Outcome{Blackholed: 19923}},
			"19923 packets or connections still reached deleted pods' addresses (19923) or removed endpoints (0) until 45 s: the old state was never left"},
		{"clean",
			results.TimelineEvent{What: "scale default/statsd to 1", AtS: 5, Probe: results.ProbeAdded, Converged: true, ProbeLatencyS: secondsPtr(0.1)},
			"nothing reached a deleted pod or a removed endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := results.TimelineRun{DurationS: 60, Events: []results.TimelineEvent{tt.event, {What: "next", AtS: 45, Converged: true}}}
			got := strings.Join(TimelineFindings(run), "\n")
			if !strings.Contains(got, tt.want) {
				t.Errorf("findings:\n%s\nwant %q", got, tt.want)
			}
		})
	}
}
