package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// runsDir is where svclab run writes run directories by default.
var runsDir = filepath.Join("results", "runs")

// tookHere maps a scenario name to how long its latest complete run under
// ./results/runs took on this machine: from meta.json's start to the last
// record written to results.jsonl. Runs that did not finish (no
// summary.json) are not counted.
func tookHere() map[string]time.Duration {
	entries, err := os.ReadDir(runsDir)
	if err != nil {
		return nil
	}
	latest := map[string]time.Time{}
	took := map[string]time.Duration{}
	for _, e := range entries {
		dir := filepath.Join(runsDir, e.Name())
		meta, err := results.ReadMeta(dir)
		if err != nil {
			continue
		}
		start, err := time.Parse(time.RFC3339, meta.Started)
		last, err2 := os.Stat(filepath.Join(dir, results.ResultsFile))
		if _, err3 := os.Stat(filepath.Join(dir, results.SummaryFile)); err != nil || err2 != nil || err3 != nil {
			continue
		}
		if start.After(latest[meta.Scenario]) {
			latest[meta.Scenario] = start
			took[meta.Scenario] = last.ModTime().Sub(start)
		}
	}
	return took
}

// tookText is the listing's cell: "24.0 s", or "not run here" (no complete
// run under ./results/runs).
func tookText(d time.Duration, ok bool) string {
	if !ok {
		return "not run here"
	}
	return metric.FormatSeconds(d.Round(time.Second).Seconds())
}
