package compare

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/svclab/svclab/sim/results"
)

// Run is one side of a comparison: a run's records and its environment.
type Run struct {
	// Path is where the run was loaded from, as given.
	Path string
	// Meta is meta.json, or results.jsonl's meta record; nil when neither
	// exists.
	Meta *results.Meta
	// Records are results.jsonl's records (or, for a run directory that
	// only holds summary.json, its medians as one repetition each).
	Records []results.Record
	// Warnings are the loader's, e.g. a truncated last line.
	Warnings []string
}

// Load reads a run from a run directory or a results.jsonl file. The
// environment comes from meta.json (beside the file, for a .jsonl path) or
// else from the first meta record. A directory without results.jsonl falls
// back on summary.json's medians, with a warning: they give one sample per
// point. Load fails when the path does not exist, when a file has a schema
// version this svclab does not read, and when the run holds no measurement.
func Load(path string) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", path, err)
	}
	dir := path
	if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	run := &Run{Path: path}
	if err := run.loadRecords(path, dir, st.IsDir()); err != nil {
		return nil, err
	}
	if err := run.loadMeta(dir); err != nil {
		return nil, err
	}
	if !hasMeasurements(run.Records) {
		return nil, fmt.Errorf("run %s: no sweep point, fairness or timeline record to compare", path)
	}
	run.noteSharing(dir)
	return run, nil
}

// noteSharing warns when summary.json says the machine was shared while
// the run measured (results.Summary.SharingWarnings: other svclab runs,
// load outside the run): a change found against it may be theirs.
func (r *Run) noteSharing(dir string) {
	summary, err := results.ReadSummary(dir)
	if err != nil {
		return
	}
	for _, warning := range summary.SharingWarnings() {
		r.Warnings = append(r.Warnings, r.Path+": "+warning)
	}
}

// loadRecords reads results.jsonl, or summary.json for a directory that
// lacks it.
func (r *Run) loadRecords(path, dir string, isDir bool) error {
	records, warnings, err := results.ReadRecords(path)
	if err == nil {
		r.Records, r.Warnings = records, warnings
		return nil
	}
	if !isDir || !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("run %s: %w", path, err)
	}
	summary, sumErr := results.ReadSummary(dir)
	if sumErr != nil {
		return fmt.Errorf("run %s: neither %s nor %s can be read: %w", path, results.ResultsFile, results.SummaryFile, sumErr)
	}
	r.Records = summaryRecords(summary)
	r.Warnings = append(r.Warnings, fmt.Sprintf("%s: no %s; using the medians of %s, one sample per point", path, results.ResultsFile, results.SummaryFile))
	return nil
}

// loadMeta reads meta.json if present, else takes the first meta record.
// A meta.json of another schema version is an error.
func (r *Run) loadMeta(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, results.MetaFile)); err == nil {
		m, err := results.ReadMeta(dir)
		if err != nil {
			return fmt.Errorf("run %s: %w", r.Path, err)
		}
		r.Meta = m
		return nil
	}
	for _, rec := range r.Records {
		if rec.Type == results.TypeMeta && rec.Meta != nil {
			r.Meta = rec.Meta
			return nil
		}
	}
	r.Warnings = append(r.Warnings, fmt.Sprintf("%s: no meta.json and no meta record: the environment is unknown", r.Path))
	return nil
}

// summaryRecords turns a summary's medians into records.
func summaryRecords(s *results.Summary) []results.Record {
	var out []results.Record
	for i := range s.Points {
		out = append(out, results.Record{Schema: s.Schema, Type: results.TypePoint, Point: &s.Points[i]})
	}
	for i := range s.Runs {
		out = append(out, results.Record{Schema: s.Schema, Type: results.TypeFairness, Fairness: &s.Runs[i]})
	}
	for i := range s.Timelines {
		out = append(out, results.Record{Schema: s.Schema, Type: results.TypeTimeline, Timeline: &s.Timelines[i]})
	}
	return out
}

func hasMeasurements(records []results.Record) bool {
	for _, r := range records {
		if (r.Type == results.TypePoint && r.Point != nil) || (r.Type == results.TypeFairness && r.Fairness != nil) || (r.Type == results.TypeTimeline && r.Timeline != nil) {
			return true
		}
	}
	return false
}

// Kind is the run's kind from its meta ("sweep" or "fairness"), or guessed
// from its records.
func (r *Run) Kind() string {
	if r.Meta != nil && r.Meta.Kind != "" {
		return r.Meta.Kind
	}
	for _, rec := range r.Records {
		if rec.Type == results.TypePoint {
			return "sweep"
		}
	}
	return "fairness"
}

// Describe is a one-line description: path, scenario, run id and start.
func (r *Run) Describe() string {
	if r.Meta == nil {
		return r.Path
	}
	return fmt.Sprintf("%s (scenario %s, run %s, started %s)", r.Path, r.Meta.Scenario, r.Meta.Run, r.Meta.Started)
}
