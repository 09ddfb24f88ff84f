package ab

import (
	"fmt"
	"path/filepath"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// RepetitionDir is where repetition rep of a side's run goes, inside the
// side's run directory sideDir.
func RepetitionDir(sideDir string, rep int) string {
	return filepath.Join(sideDir, "reps", fmt.Sprintf("%02d", rep))
}

// Merge makes sideDir an ordinary run directory of reps repetitions out of
// the one-repetition runs in its RepetitionDirs: results.jsonl with the
// first run's meta record and every run's point records renumbered by
// repetition, meta.json, and summary.json (medians and fits as svclab run
// writes them, and what shared the machine with the repetitions: their
// beside runs and their outside load pooled). A repetition that recorded
// no point is an error naming its directory.
func Merge(sideDir string, reps int) error {
	var meta *results.Meta
	var points []results.Record
	var sharing sharedMachine
	for rep := 1; rep <= reps; rep++ {
		dir := RepetitionDir(sideDir, rep)
		records, _, err := results.ReadRecords(dir)
		if err != nil {
			return fmt.Errorf("merge repetition %d: %w", rep, err)
		}
		sharing.add(dir)
		n := len(points)
		for _, r := range records {
			switch {
			case r.Type == results.TypeMeta && meta == nil:
				meta = r.Meta
			case r.Type == results.TypePoint && r.Point != nil:
				p := *r.Point
				p.Repetition = rep
				points = append(points, results.Record{Type: results.TypePoint, Point: &p})
			}
		}
		if len(points) == n {
			return fmt.Errorf("merge repetition %d: %s recorded no sweep point (an A/B run needs a scenario with a sweep: section)", rep, dir)
		}
	}
	if meta == nil {
		return fmt.Errorf("merge %s: no meta record in its repetitions", sideDir)
	}
	return writeMerged(sideDir, meta, points, sharing)
}

// sharedMachine is what shared the machine with a side's repetitions, read
// from their summary.json files (a repetition without one adds nothing).
type sharedMachine struct {
	beside  []results.BesideRun
	outside []*results.OutsideLoad
}

func (m *sharedMachine) add(repetitionDir string) {
	s, err := results.ReadSummary(repetitionDir)
	if err != nil {
		return
	}
	m.beside = append(m.beside, s.BesideRuns...)
	m.outside = append(m.outside, s.OutsideLoad)
}

func writeMerged(dir string, meta *results.Meta, points []results.Record, sharing sharedMachine) error {
	w, err := results.Create(dir)
	if err != nil {
		return err
	}
	defer w.Close()
	for _, r := range append([]results.Record{{Type: results.TypeMeta, Meta: meta}}, points...) {
		if err := w.Append(r); err != nil {
			return err
		}
	}
	if err := results.WriteJSON(dir, results.MetaFile, meta); err != nil {
		return err
	}
	agg, fits := metric.Aggregate(points)
	summary := &results.Summary{Schema: results.SchemaVersion, Run: meta.Run, Scenario: meta.Scenario, Kind: "sweep", Complete: true, Points: agg, Fits: fits,
		BesideRuns: sharing.beside, OutsideLoad: results.PoolOutsideLoads(sharing.outside)}
	summary.Warnings = summary.SharingWarnings()
	return results.WriteJSON(dir, results.SummaryFile, summary)
}

// Load reads an A/B run directory: its plan and both sides' records.
func Load(dir string) (plan *Plan, base, new []results.Record, err error) {
	plan = &Plan{}
	if err := readPlan(filepath.Join(dir, PlanFile), plan); err != nil {
		return nil, nil, nil, err
	}
	if base, _, err = results.ReadRecords(filepath.Join(dir, Base)); err != nil {
		return nil, nil, nil, err
	}
	if new, _, err = results.ReadRecords(filepath.Join(dir, New)); err != nil {
		return nil, nil, nil, err
	}
	return plan, base, new, nil
}
