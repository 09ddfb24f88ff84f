package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/results"
)

// TestTookHereReadsTheLatestCompleteRun: the "takes here" column is the
// latest complete run's start to its last record; an unfinished run (no
// summary.json) does not count, and a scenario never run says so.
func TestTookHereReadsTheLatestCompleteRun(t *testing.T) {
	old := runsDir
	runsDir = t.TempDir()
	t.Cleanup(func() { runsDir = old })
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	write := func(name string, started time.Time, took time.Duration, complete bool) {
		dir := filepath.Join(runsDir, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		meta := results.Meta{Schema: results.SchemaVersion, Scenario: "split-2", Started: started.Format(time.RFC3339)}
		if err := results.WriteJSON(dir, results.MetaFile, meta); err != nil {
			t.Fatal(err)
		}
		jsonl := filepath.Join(dir, results.ResultsFile)
		if err := os.WriteFile(jsonl, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(jsonl, started.Add(took), started.Add(took)); err != nil {
			t.Fatal(err)
		}
		if complete {
			if err := results.WriteJSON(dir, results.SummaryFile, results.Summary{Schema: results.SchemaVersion}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("split-2-a", start, 30*time.Second, true)
	write("split-2-b", start.Add(time.Hour), 24*time.Second, true)
	write("split-2-c", start.Add(2*time.Hour), 5*time.Second, false) // interrupted
	took := tookHere()
	if got := tookText(took["split-2"], true); got != "24.0 s" {
		t.Errorf("split-2 takes %q here, want 24.0 s (the latest complete run)", got)
	}
	if _, ok := took["split-5"]; ok || tookText(0, false) != "not run here" {
		t.Errorf("a scenario never run: %v", took)
	}
}
