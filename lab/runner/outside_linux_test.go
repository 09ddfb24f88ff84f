package runner

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/sim/results"
)

// TestOutsideWatch feeds readings at chosen times: the mean is over the
// whole watch, the peak over one poll, a poll much shorter than
// besidePoll sets no peak, and a failed reading ends the watch.
func TestOutsideWatch(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	type reading struct {
		at           float64
		tasks, steal float64
		err          error
	}
	for _, tt := range []struct {
		name       string
		readings   []reading
		wantNil    bool
		mean, peak float64
		peakAt     string
		steal      float64
	}{
		{"one reading is no load", []reading{{at: 0, tasks: 10}}, true, 0, 0, "", 0},
		{"steady", []reading{{0, 10, 0, nil}, {2, 10.2, 0, nil}, {4, 10.4, 0, nil}}, false, 0.1, 0.1, "", 0},
		{"a burst", []reading{{0, 10, 1, nil}, {2, 10, 1, nil}, {4, 12, 1.4, nil}, {6, 12, 1.4, nil}}, false, 2.0 / 6, 1, "09:00:04", 0.4 / 6},
		{"a short last poll sets no peak", []reading{{0, 10, 0, nil}, {2, 10.2, 0, nil}, {2.1, 10.5, 0, nil}}, false, 0.5 / 2.1, 0.1, "09:00:02", 0},
		{"a reading that falls gives no negative load", []reading{{0, 10, 0, nil}, {2, 9.99, 0, nil}}, false, 0, 0, "", 0},
		{"a failed reading ends it", []reading{{0, 10, 0, nil}, {2, 0, 0, errors.New("no /proc")}, {4, 20, 0, nil}}, true, 0, 0, "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w outsideWatch
			errs, logged := 0, 0
			for _, r := range tt.readings {
				if err := w.note(procstat.OutsideCPU{Tasks: r.tasks, Steal: r.steal}, r.err, at(r.at)); err != nil {
					errs++
				}
				if _, ok := w.newlyBusy(); ok {
					logged++
				}
			}
			if wantLogged := tt.peak >= results.OutsideWarnPeakCPUs; (logged == 1) != wantLogged || logged > 1 {
				t.Errorf("logged the load %d times, want once: %t", logged, wantLogged)
			}
			got := w.result()
			if (got == nil) != tt.wantNil {
				t.Fatalf("result = %+v, want nil: %t", got, tt.wantNil)
			}
			if got == nil {
				return
			}
			if errs != 0 || math.Abs(got.CPUs-tt.mean) > 1e-9 || math.Abs(got.PeakCPUs-tt.peak) > 1e-9 || math.Abs(got.StealCPUs-tt.steal) > 1e-9 {
				t.Errorf("result = %+v (%d errors), want mean %v, peak %v, steal %v", *got, errs, tt.mean, tt.peak, tt.steal)
			}
			if tt.peakAt != "" && got.PeakAt != t0.Format("2006-01-02T")+tt.peakAt+"Z" {
				t.Errorf("peak at %s, want %s", got.PeakAt, tt.peakAt)
			}
		})
	}
}
