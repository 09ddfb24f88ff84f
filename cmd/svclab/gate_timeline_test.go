package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// editTimeline returns an edit that changes every timeline record.
func editTimeline(f func(*results.TimelineRun)) func(*results.Record) {
	return func(r *results.Record) {
		if r.Type != results.TypeTimeline {
			return
		}
		t := *r.Timeline
		t.Totals = append([]results.Outcome(nil), t.Totals...)
		f(&t)
		r.Timeline = &t
	}
}

// TestGatePlantedTimelineRegressions plants dynamic regressions into a copy
// of the recorded udp-stale-conntrack run of kube-proxy 1.37 (the fixed
// one): its UDP sender's datagrams reaching the deleted pod for the whole
// window (kubernetes#139628 come back), and a change that never converges.
// The gate fails on each; the unchanged copy passes.
func TestGatePlantedTimelineRegressions(t *testing.T) {
	base := filepath.Join("..", "..", "results", "udp-stale-conntrack-kube-proxy-1.37")
	tmp := t.TempDir()
	tests := []struct {
		name     string
		edit     func(*results.Record)
		wantCode int
		wantOut  string
	}{
		{"unchanged copy", func(*results.Record) {}, 0, "PASS"},
		{"blackholed", editTimeline(func(r *results.TimelineRun) {
			moved := r.Totals[0].Served / 2
			r.Totals[0].Served -= moved
			r.Totals[0].Blackholed += moved
		}), 1, "REGRESSION blackholed iptables-nft (timeline): 343 of"},
		{"unconverged", editTimeline(func(r *results.TimelineRun) { r.Unconverged++ }), 1, "REGRESSION unconverged iptables-nft (timeline): 0 → 1 changes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			planted := rewrittenRun(t, base, filepath.Join(tmp, strings.ReplaceAll(tt.name, " ", "-")), tt.edit)
			stdout, stderr, code := runCommand(t, "gate", base, planted)
			if code != tt.wantCode || !strings.Contains(stdout, tt.wantOut) {
				t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, tt.wantOut, stdout, stderr)
			}
		})
	}
}
