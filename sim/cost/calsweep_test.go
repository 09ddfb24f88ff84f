package cost

import (
	"testing"
	"time"

	"github.com/svclab/svclab/sim/scenario"
)

// TestCalibrationSweepIsAScenario: the sweep calibrate writes loads as a
// scenario, and its repetitions follow the duration.
func TestCalibrationSweepIsAScenario(t *testing.T) {
	tests := []struct {
		duration time.Duration
		reps     int
		wantReps int
	}{
		{DefaultCalibrationDuration, 0, 3},
		{10 * time.Minute, 0, 14},
		{time.Minute, 0, 3},
		{time.Minute, 7, 7},
		{time.Hour, 0, 60},
	}
	for _, tt := range tests {
		c, err := NewCalibrationSweep(tt.duration, tt.reps, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Repetitions != tt.wantReps {
			t.Errorf("%v, reps %d: %d repetitions, want %d", tt.duration, tt.reps, c.Repetitions, tt.wantReps)
		}
		sc, err := scenario.Parse("calibration.yaml", c.Scenario())
		if err != nil {
			t.Fatalf("%v\n%s", err, c.Scenario())
		}
		if sc.Sweep == nil || len(sc.Sweep.Services) != len(DefaultCalibrationServices) || len(sc.Dataplanes()) != 3 {
			t.Errorf("scenario %+v", sc.Sweep)
		}
	}
	if _, err := NewCalibrationSweep(0, 0, nil, nil); err == nil {
		t.Error("no duration and no repetitions: want an error")
	}
	if _, err := NewCalibrationSweep(time.Minute, 0, []string{"ebpf"}, nil); err == nil {
		t.Error("a dataplane the model does not know: want an error")
	}
}
