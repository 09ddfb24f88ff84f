package main

import (
	"path/filepath"
	"slices"
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

// slowestTimes multiplies the k largest change latencies of every
// timeline record by f, and its p99 with them.
func slowestTimes(k int, f float64) func(*results.Record) {
	return editTimeline(func(r *results.TimelineRun) {
		lat := slices.Clone(r.ChangeLatenciesS)
		order := slices.Clone(lat)
		slices.Sort(order)
		cut := order[len(order)-k]
		for i, x := range lat {
			if x >= cut {
				lat[i] = x * f
			}
		}
		r.ChangeLatenciesS = lat
		r.ProbeLatencyP99S *= f
	})
}

// TestGatePlantedTimelineP99 plants a programming-latency tail regression
// into a copy of the recorded service-storm run (100 probed creations):
// its 5 slowest changes 3 times slower, the median unchanged. The gate
// fails on the p99; one slow change alone is within chance (p = 0.5) and
// passes.
func TestGatePlantedTimelineP99(t *testing.T) {
	base := filepath.Join("..", "..", "results", "service-storm-native-nftables")
	tmp := t.TempDir()
	tests := []struct {
		name     string
		edit     func(*results.Record)
		wantCode int
		want     string
		notWant  string
	}{
		{"5 of 100 slowest 3x", slowestTimes(5, 3), 1, "REGRESSION probe_latency_p99_s nftables (timeline): probe latency p99 18.335 s → 55.004 s (threshold +20%); 5 of 100 changes slower than base's slowest (p=0.0297)", ""},
		{"the slowest alone 3x", slowestTimes(1, 3), 0, "PASS", "REGRESSION"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			planted := rewrittenRun(t, base, filepath.Join(tmp, strings.ReplaceAll(tt.name, " ", "-")), tt.edit)
			stdout, stderr, code := runCommand(t, "gate", base, planted)
			if code != tt.wantCode || !strings.Contains(stdout, tt.want) || tt.notWant != "" && strings.Contains(stdout, tt.notWant) {
				t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, tt.want, stdout, stderr)
			}
		})
	}
}
