package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// scaleLatencies returns an edit that multiplies every repetition's
// latencies by f (and drops the histogram, which would disagree).
func scaleLatencies(f float64) func(*results.Record) {
	return func(r *results.Record) {
		if r.Type != results.TypePoint {
			return
		}
		p := *r.Point
		p.P50us, p.P90us, p.P99us, p.P999us, p.MeanUs = f*p.P50us, f*p.P90us, f*p.P99us, f*p.P999us, f*p.MeanUs
		p.Histogram = nil
		r.Point = &p
	}
}

// scaleSync returns an edit that multiplies every sync time by f.
func scaleSync(f float64) func(*results.Record) {
	return func(r *results.Record) {
		if r.Type != results.TypePoint {
			return
		}
		p := *r.Point
		p.SyncFullS, p.SyncIncrementalS = f*p.SyncFullS, f*p.SyncIncrementalS
		r.Point = &p
	}
}

// TestGatePlantedRegressionsOnTheBaseline plants regressions into copies of
// the committed CI baseline (six repetitions, ±19–56% spread per point) and
// checks that the gate never says PASS for any of them: +10% latency may be
// INCONCLUSIVE, +30% latency is a REGRESSION, +20% sync time is never a
// PASS. The baseline against an unchanged copy of itself is INCONCLUSIVE:
// it is too noisy to rule out a 10% change.
func TestGatePlantedRegressionsOnTheBaseline(t *testing.T) {
	base := filepath.Join("..", "..", "results", "baseline", "ci-smoke")
	tmp := t.TempDir()
	tests := []struct {
		name      string
		edit      func(*results.Record)
		wantCodes []int
		wantOut   string
	}{
		{"unchanged copy", func(*results.Record) {}, []int{3}, "INCONCLUSIVE:"},
		{"latency +10%", scaleLatencies(1.10), []int{1, 3}, ""},
		{"latency +30%", scaleLatencies(1.30), []int{1}, "REGRESSION p50_us iptables-nft (4 points): +30.0%"},
		{"sync +20%", scaleSync(1.20), []int{1, 3}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			planted := rewrittenRun(t, base, filepath.Join(tmp, strings.ReplaceAll(tt.name, " ", "-")), tt.edit)
			stdout, stderr, code := runCommand(t, "gate", base, planted)
			ok := false
			for _, c := range tt.wantCodes {
				ok = ok || c == code
			}
			if !ok || strings.Contains(stdout, "PASS") || !strings.Contains(stdout, tt.wantOut) || !strings.Contains(stdout, "power: ") {
				t.Errorf("exit %d, want one of %v and %q, never PASS\nstdout:\n%s\nstderr:\n%s", code, tt.wantCodes, tt.wantOut, stdout, stderr)
			}
		})
	}
}
