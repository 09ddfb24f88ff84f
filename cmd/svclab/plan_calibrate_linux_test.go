package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/cost"
)

// TestCalibrationRunFlags: the calibration's run flags set everything
// runAndPrint dereferences (a nil progress mode crashed calibrate), and the
// deadline only under a budget.
func TestCalibrationRunFlags(t *testing.T) {
	started := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name         string
		duration     time.Duration
		reps         int
		wantDeadline time.Time
	}{
		{"the default budget", cost.DefaultCalibrationDuration, 0, started.Add(cost.DefaultCalibrationDuration)},
		{"repetitions given: no deadline", time.Minute, 5, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sweep, err := cost.NewCalibrationSweep(tt.duration, tt.reps, nil, nil, cost.Probes{})
			if err != nil {
				t.Fatal(err)
			}
			f := calibrationRunFlags("dir", sweep, progressPlain, started)
			if f.format == nil || f.progress == nil || *f.progress != progressPlain {
				t.Fatalf("flags %+v: format and progress must be set", f)
			}
			if !f.deadline.Equal(tt.wantDeadline) {
				t.Errorf("deadline %v, want %v", f.deadline, tt.wantDeadline)
			}
		})
	}
}

// TestPlanCalibrateRefusesUnknownBatchKind: plan calibrate --batch-kind
// takes endpoints or services, and says so before any sweep starts.
func TestPlanCalibrateRefusesUnknownBatchKind(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"plan", "calibrate", "--batch-kind", "pods"}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `--batch-kind "pods": use endpoints or services`) {
		t.Errorf("exit %d, stderr %q; want 2 and the kinds", code, stderr.String())
	}
}
