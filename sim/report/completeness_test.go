package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// TestEmptyRunsAreRefused (issue 10 point 4): a directory without results,
// and a run that measured nothing (even if its summary.json says
// complete), get no report but ErrEmptyRun.
func TestEmptyRunsAreRefused(t *testing.T) {
	meta := results.Record{Schema: results.SchemaVersion, Type: results.TypeMeta, Meta: &results.Meta{Schema: results.SchemaVersion, Run: "svl-x", Kind: "fairness"}}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"empty directory", func(t *testing.T, dir string) {}, "no results.jsonl and no summary.json"},
		{"missing directory", func(t *testing.T, dir string) { os.Remove(dir) }, "no results.jsonl"},
		{"meta only, summary claims complete", func(t *testing.T, dir string) {
			writeRecords(t, dir, []results.Record{meta})
			s := &results.Summary{Schema: results.SchemaVersion, Kind: "fairness", Complete: true}
			if err := results.WriteJSON(dir, results.SummaryFile, s); err != nil {
				t.Fatal(err)
			}
		}, "the run measured nothing"},
		{"meta only", func(t *testing.T, dir string) { writeRecords(t, dir, []results.Record{meta}) }, "the run measured nothing (1 records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir)
			_, err := WriteReport(dir)
			if !errors.Is(err, ErrEmptyRun) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrEmptyRun with %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ReportFile)); err == nil {
				t.Fatal("a report was written")
			}
		})
	}
}

// TestPlanDecidesCompleteness: a summary.json that says complete is
// corrected when the recorded plan has measurements that were not made.
func TestPlanDecidesCompleteness(t *testing.T) {
	run := sampleFairnessRun()
	plan := &results.Plan{Fairness: []results.PlannedFairness{
		{Dataplane: run.Dataplane, Service: run.Service}, {Dataplane: "nftables", Service: run.Service}}}
	dir := t.TempDir()
	writeRecords(t, dir, []results.Record{
		{Schema: results.SchemaVersion, Type: results.TypePlan, Plan: plan},
		{Schema: results.SchemaVersion, Type: results.TypeFairness, Fairness: &run},
	})
	s := &results.Summary{Schema: results.SchemaVersion, Kind: "fairness", Complete: true, Runs: []results.FairnessRun{run}}
	if err := results.WriteJSON(dir, results.SummaryFile, s); err != nil {
		t.Fatal(err)
	}
	rep, err := WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(rep.Markdown)
	for _, want := range []string{"**Incomplete run:** 1 of 2 planned measurements", "results.jsonl disagrees", "missing: fairness nftables " + run.Service} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
