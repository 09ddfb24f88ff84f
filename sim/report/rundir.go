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

// ErrEmptyRun says a directory holds no run, or a run that measured
// nothing: there is nothing to report.
var ErrEmptyRun = errors.New("nothing to report")

// LoadRun reads a run directory. summary.json is used when it is present
// and complete; otherwise the summary is rebuilt from results.jsonl (see
// Rebuild), so that a run killed half way still gets a report. When
// results.jsonl holds the run's plan, completeness is decided from it (a
// summary.json claiming completeness for a run that missed planned
// measurements is corrected). It fails with ErrEmptyRun (wrapped) when the
// directory holds neither file or the run measured nothing, and otherwise
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
	case errors.Is(sumErr, os.ErrNotExist) && errors.Is(recErr, os.ErrNotExist):
		return nil, fmt.Errorf("%s: %w: no %s and no %s (not a run directory, or a run that stopped before its first record)",
			dir, ErrEmptyRun, results.ResultsFile, results.SummaryFile)
	default:
		return nil, fmt.Errorf("read run directory %s: %w", dir, errors.Join(sumErr, recErr))
	}
	if len(run.Summary.Runs) == 0 && len(run.Summary.Points) == 0 && len(run.Summary.Timelines) == 0 {
		return nil, fmt.Errorf("%s: %w: the run measured nothing (%d records, no fairness run and no sweep point)%s",
			dir, ErrEmptyRun, len(records), firstWarning(run.Summary.Warnings))
	}
	checkCompleteness(run.Summary, records)
	run.Summary.Warnings = append(run.Summary.Warnings, recWarnings...)
	if recErr != nil && !errors.Is(recErr, os.ErrNotExist) {
		run.Summary.Warnings = append(run.Summary.Warnings, recErr.Error())
	}
	if run.Meta == nil {
		run.Summary.Warnings = append(run.Summary.Warnings, "meta.json is missing: the environment is unknown")
	}
	return run, nil
}

// checkCompleteness decides completeness from the plan in records, when
// there is one.
func checkCompleteness(s *results.Summary, records []results.Record) {
	plan := results.PlanOf(records)
	if plan == nil {
		return
	}
	c := results.CheckPlan(plan, records)
	if s.Complete && !c.Complete() {
		s.Warnings = append(s.Warnings, "summary.json says the run is complete, but results.jsonl disagrees")
	}
	if s.Complete != c.Complete() || !c.Complete() {
		s.SetCompleteness(c)
	} else {
		s.Planned, s.Measured = c.Planned, c.Made
	}
}

func firstWarning(warnings []string) string {
	if len(warnings) == 0 {
		return ""
	}
	return "; " + warnings[0]
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
		case r.Type == results.TypeTimeline && r.Timeline != nil:
			s.Timelines = append(s.Timelines, *r.Timeline)
		}
	}
	s.Points, s.Fits = metric.Aggregate(records)
	s.WalkProbes = metric.AggregateWalkProbes(records)
	s.SyncProbes = metric.AggregateSyncProbes(records)
	if s.Kind == "" {
		s.Kind = "fairness"
		if len(s.Points) > 0 {
			s.Kind = "sweep"
		}
	}
	return s
}
