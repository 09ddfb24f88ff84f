package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// Run is what a run directory holds, as the report needs it.
type Run struct {
	// Summary is summary.json, or the summary rebuilt from results.jsonl
	// when summary.json is missing or incomplete (Complete is then false).
	Summary *results.Summary
	// Meta is meta.json, or results.jsonl's meta record; nil if neither.
	Meta *results.Meta
	// Records are results.jsonl's records; nil when it is missing.
	Records []results.Record
}

// LoadRun reads a run directory. summary.json is used when it is present
// and complete; otherwise the summary is rebuilt from results.jsonl (see
// Rebuild), so that a run killed half way still gets a report. It fails
// only when neither file can be read.
func LoadRun(dir string) (*Run, error) {
	records, recWarnings, recErr := results.ReadRecords(filepath.Join(dir, results.ResultsFile))
	summary, sumErr := results.ReadSummary(dir)
	run := &Run{Records: records, Meta: loadMeta(dir, records)}
	switch {
	case sumErr == nil && summary.Complete:
		run.Summary = summary
	case recErr == nil:
		run.Summary = Rebuild(records)
		run.Summary.Warnings = append(run.Summary.Warnings, rebuildReason(sumErr, len(records)))
		if summary != nil {
			run.Summary.Warnings = append(run.Summary.Warnings, summary.Warnings...)
		}
	case sumErr == nil:
		run.Summary = summary
	default:
		return nil, fmt.Errorf("read run directory %s: %w", dir, errors.Join(sumErr, recErr))
	}
	run.Summary.Warnings = append(run.Summary.Warnings, recWarnings...)
	if recErr != nil && !errors.Is(recErr, os.ErrNotExist) {
		run.Summary.Warnings = append(run.Summary.Warnings, recErr.Error())
	}
	if run.Meta == nil {
		run.Summary.Warnings = append(run.Summary.Warnings, "meta.json is missing: the environment is unknown")
	}
	return run, nil
}

func rebuildReason(sumErr error, n int) string {
	if sumErr != nil {
		return fmt.Sprintf("summary.json could not be read; this report was rebuilt from the %d records of results.jsonl", n)
	}
	return fmt.Sprintf("summary.json is incomplete (the run was interrupted); this report was rebuilt from the %d records of results.jsonl", n)
}

// loadMeta reads meta.json, or falls back on the first meta record.
func loadMeta(dir string, records []results.Record) *results.Meta {
	if m, err := results.ReadMeta(dir); err == nil {
		return m
	}
	for _, r := range records {
		if r.Type == results.TypeMeta && r.Meta != nil {
			return r.Meta
		}
	}
	return nil
}

// Rebuild makes a summary from results.jsonl's records: fairness runs as
// recorded, sweep points and fits from metric.Aggregate. Run, scenario and kind
// come from the meta record; without one the kind is guessed from the
// records. The summary is marked incomplete.
func Rebuild(records []results.Record) *results.Summary {
	s := &results.Summary{Schema: results.SchemaVersion}
	for _, r := range records {
		switch {
		case r.Type == results.TypeMeta && r.Meta != nil && s.Run == "":
			s.Run, s.Scenario, s.Kind = r.Meta.Run, r.Meta.Scenario, r.Meta.Kind
		case r.Type == results.TypeFairness && r.Fairness != nil:
			s.Runs = append(s.Runs, *r.Fairness)
		}
	}
	s.Points, s.Fits = metric.Aggregate(records)
	if s.Kind == "" {
		s.Kind = "fairness"
		if len(s.Points) > 0 {
			s.Kind = "sweep"
		}
	}
	return s
}
