package results

import (
	"fmt"
	"strings"
	"time"
)

// BesideRun is another svclab run, lab or privileged test that held its
// lease (lab/lease) on the machine while a run measured: its rule loads,
// traffic and syncs share the CPUs, so the run's timings are slower and
// more scattered than the machine's alone, by an amount nobody measured.
type BesideRun struct {
	// Run is its run prefix (svl-…).
	Run string `json:"run"`
	// Kind is its lease's kind: "run", "up" or "test".
	Kind string `json:"kind"`
	// PID is its owner process.
	PID int `json:"pid"`
	// FirstSeen and LastSeen bound when it was seen live (RFC 3339, UTC;
	// the machine is polled every few seconds).
	FirstSeen string `json:"first_seen"`
	LastSeen  string `json:"last_seen"`
}

// String is "svl-3aba (run, pid 4242, 06:17:41-06:25:03 UTC)".
func (b BesideRun) String() string {
	return fmt.Sprintf("%s (%s, pid %d, %s-%s UTC)", b.Run, b.Kind, b.PID, clockOf(b.FirstSeen), clockOf(b.LastSeen))
}

// clockOf is an RFC 3339 time's time of day, or the text itself when it is
// not one.
func clockOf(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.TimeOnly)
}

// BesideWarning is the warning that run was measured beside others
// (a summary's, a calibration's, a comparison's); "" when there were none.
func BesideWarning(run string, beside []BesideRun) string {
	if len(beside) == 0 {
		return ""
	}
	names := make([]string, len(beside))
	for i, b := range beside {
		names[i] = b.String()
	}
	return fmt.Sprintf("run %s was measured while other svclab runs shared the machine: %s (any load they had made its latencies, CPU and sync times slower and more scattered than the machine's alone: measure again with the machine to itself)",
		run, strings.Join(names, ", "))
}
