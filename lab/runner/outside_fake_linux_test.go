package runner_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/sim/results"
)

// TestOutsideLoad runs a fake sweep on a machine whose other programs use
// no CPU, then on one where they do: summary.json records the load outside
// the run either way, and warns of it only in the second.
func TestOutsideLoad(t *testing.T) {
	for _, tt := range []struct {
		name    string
		perRead procstat.OutsideCPU
		warn    bool
	}{
		{"nothing else running", procstat.OutsideCPU{}, false},
		{"a build beside the run", procstat.OutsideCPU{Tasks: 3}, true},
		{"a hypervisor that steals", procstat.OutsideCPU{Steal: 3}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			m := &labfake.Machine{Seed: 7, OutsidePerRead: tt.perRead}
			if _, err := runner.Run(t.Context(), loadScenarioText(t, fakeSweep), runner.RunOptions{Options: runner.Options{OutDir: dir, Prefix: "svl-fake", Machine: m}}); err != nil {
				t.Fatal(err)
			}
			s, err := results.ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			if s.OutsideLoad == nil || s.OutsideLoad.Seconds <= 0 {
				t.Fatalf("summary.json outside_load = %+v, want the watched span", s.OutsideLoad)
			}
			busy := s.OutsideLoad.CPUs > 0 || s.OutsideLoad.StealCPUs > 0
			warned := strings.Contains(strings.Join(s.Warnings, "\n"), "outside svclab's own processes")
			if busy != tt.warn || warned != tt.warn {
				t.Errorf("outside_load %+v, warned %t (%q); want load and warning: %t", *s.OutsideLoad, warned, s.Warnings, tt.warn)
			}
		})
	}
}
