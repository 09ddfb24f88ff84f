package report

import (
	"testing"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/results/resultstest"
)

// The synthetic sweep the report tests render.
var (
	sweepServices = resultstest.SweepServices
	sweepPoint    = resultstest.Point
	sweepRecords  = resultstest.SweepRecords
	pointRecord   = resultstest.PointRecord
)

// writeRecords writes records as a run directory's results.jsonl.
func writeRecords(t *testing.T, dir string, recs []results.Record) {
	t.Helper()
	w, err := results.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
