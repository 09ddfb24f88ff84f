package runner_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/sim/results"
)

// TestBesideRuns checks that a run records the other svclab runs live on
// the machine while it measures (summary.json's beside_runs and a
// warning) and logs each once, and that a run alone records none.
func TestBesideRuns(t *testing.T) {
	other := machine.OtherRun{Run: "svl-othr", Kind: "run", PID: 4242}
	for _, tt := range []struct {
		name   string
		others []machine.OtherRun
	}{
		{"alone", nil},
		{"beside another run", []machine.OtherRun{other}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu   sync.Mutex
				logs []string
			)
			logf := func(format string, args ...any) {
				mu.Lock()
				logs = append(logs, fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			dir := filepath.Join(t.TempDir(), "run")
			m := &labfake.Machine{Seed: 7, Others: tt.others}
			if _, err := runner.Run(t.Context(), loadScenarioText(t, fakeSweep), runner.RunOptions{Options: runner.Options{OutDir: dir, Prefix: "svl-fake", Machine: m, Log: logf}}); err != nil {
				t.Fatal(err)
			}
			s, err := results.ReadSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			warned := strings.Contains(strings.Join(s.Warnings, "\n"), "svl-othr (run, pid 4242")
			logged := strings.Count(strings.Join(logs, "\n"), "svl-othr (pid 4242) is live")
			switch {
			case tt.others == nil && (len(s.BesideRuns) != 0 || warned || logged != 0):
				t.Errorf("a run alone recorded %v, warned %t, logged %d times", s.BesideRuns, warned, logged)
			case tt.others != nil && (len(s.BesideRuns) != 1 || s.BesideRuns[0].Run != other.Run || s.BesideRuns[0].FirstSeen == "" || !warned || logged != 1):
				t.Errorf("beside %v: recorded %v, warned %t (%q), logged %d times (want once)", other, s.BesideRuns, warned, s.Warnings, logged)
			}
		})
	}
}
