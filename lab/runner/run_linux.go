package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/fairness"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/sweep"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// RunOptions are Options plus what a whole run needs to know.
type RunOptions struct {
	Options
	// Signal names what stopped the run when ctx ends (e.g. "interrupt");
	// it is recorded in the interrupted record.
	Signal func() string
}

// Outcome is a finished (or stopped) run.
type Outcome struct {
	// Dir is the run directory.
	Dir string
	// Summary is summary.json's content; nil when nothing was measured.
	Summary *results.Summary
	// Guest is the guest kernel's release when the run ran in a guest
	// (see lab/guest).
	Guest string
}

// ErrInterrupted wraps the error of a run that ctx stopped.
var ErrInterrupted = errors.New("interrupted")

// Run runs a scenario from start to end on this kernel: it checks the
// prerequisites, takes the run's lease, creates the run directory, records
// meta.json, runs the fairness and sweep sections, writes summary.json and
// tears every lab down, also when ctx ends (the error then wraps
// ErrInterrupted and results.jsonl ends with an interrupted record). Where a
// run goes when this kernel lacks what a dataplane needs is lab/guest's.
func Run(ctx context.Context, sc *scenario.Scenario, opts RunOptions) (*Outcome, error) {
	opts, err := Prepare(sc, opts)
	if err != nil {
		return nil, err
	}
	if err := opts.Machine.Prerequisites(sc.Dataplanes()); err != nil {
		return nil, err
	}
	hold, err := opts.Machine.Hold(opts.Prefix)
	if err != nil {
		return nil, err
	}
	out, err := runHere(ctx, sc, opts)
	return out, hold.Done(err)
}

// Prepare checks that sc has something to run and fills opts' defaults: the
// real kernel, a new run prefix, results/runs/NAME-TIMESTAMP.
func Prepare(sc *scenario.Scenario, opts RunOptions) (RunOptions, error) {
	if sc.Fairness == nil && sc.Sweep == nil && sc.Timeline == nil {
		return opts, inputErrorf("scenario %s has no fairness:, sweep: or timeline: section; nothing to run (svclab render shows its rules)", sc.Name)
	}
	if sc.Sweep != nil {
		if err := sweep.CheckProbeCPU(sc.Sweep.ProbeCPU); err != nil {
			return opts, &InputError{Err: fmt.Errorf("scenario %s: %w", sc.Name, err)}
		}
	}
	opts.Options = opts.Options.withDefaults()
	if opts.OutDir == "" {
		opts.OutDir = defaultRunDir(sc.Name)
	}
	return opts, nil
}

// runHere runs the scenario on this kernel into opts.OutDir.
func runHere(ctx context.Context, sc *scenario.Scenario, opts RunOptions) (*Outcome, error) {
	w, err := results.Create(opts.OutDir)
	if err != nil {
		return nil, &InputError{Err: err} // a used or unwritable --out
	}
	defer w.Close()
	out := &Outcome{Dir: opts.OutDir}
	meta := CollectMeta(opts.Prefix, sc, sc.Kind())
	meta.PlantRules = opts.PlantRules
	beside := watchBeside(ctx, opts.Options)
	defer beside.finish()
	var sectionOpts Options
	if meta.ChainListWalk, sectionOpts, err = timeChainListWalk(ctx, sc, opts.Options); err != nil {
		return out, err
	}
	if meta.ChainDumpWalk, sectionOpts, err = timeChainDumpWalk(ctx, sc, sectionOpts, opts.Prefix); err != nil {
		return out, err
	}
	if meta.AnonymousSetWalk, sectionOpts, err = timeAnonymousSetWalk(ctx, sc, sectionOpts, opts.Prefix); err != nil {
		return out, err
	}
	if err := results.WriteJSON(opts.OutDir, results.MetaFile, meta); err != nil {
		return out, err
	}
	if err := w.Append(results.Record{Type: results.TypeMeta, Meta: &meta}); err != nil {
		return out, err
	}
	plan := sc.Plan()
	if !opts.Deadline.IsZero() {
		plan.RequiredRepetitions = opts.withDefaults().MinRepetitions
	}
	if err := w.Append(results.Record{Type: results.TypePlan, Plan: plan}); err != nil {
		return out, err
	}
	opts.logf("svclab: run %s of scenario %s → %s", opts.Prefix, sc.Name, opts.OutDir)
	// A rule load can run for minutes; an interrupt kills it, not waits.
	stopLoads := context.AfterFunc(ctx, func() { netns.StopCommands(opts.Prefix + "-") })
	defer stopLoads()
	summary, runErr := runSections(ctx, sc, sectionOpts, w)
	out.Summary = summary
	if meta.ChainListWalk != nil && runErr == nil && ctx.Err() == nil {
		chainListWalkAgain(ctx, opts.Options, w)
	}
	if ctx.Err() != nil {
		runErr = Interrupted(w, opts, summary)
	}
	done := results.CheckPlanIn(opts.OutDir, plan)
	summary.SetCompleteness(done)
	recordBeside(summary, beside)
	if runErr == nil && done.Made == 0 {
		runErr = fmt.Errorf("nothing was measured: %s", strings.Join(summary.Warnings, "; "))
	}
	if err := results.WriteJSON(opts.OutDir, results.SummaryFile, summary); err != nil && runErr == nil {
		runErr = err
	}
	return out, runErr
}

// Interrupted appends the interrupted record to w, marks s incomplete, and
// returns ErrInterrupted wrapped with what stopped the run and how far it got.
func Interrupted(w *results.Writer, opts RunOptions, s *results.Summary) error {
	sig := "cancelled"
	if opts.Signal != nil {
		sig = opts.Signal()
	}
	s.Complete = false
	done := fmt.Sprintf("%d fairness measurements, %d sweep points", len(s.Runs), len(s.Points))
	if records, _, err := results.ReadRecords(w.Dir()); err == nil {
		if plan := results.PlanOf(records); plan != nil {
			done = results.CheckPlan(plan, records).String()
		}
	}
	rec := results.Record{Type: results.TypeInterrupted, Interrupted: &results.Interruption{Signal: sig, At: time.Now().UTC().Format(time.RFC3339), Completed: done}}
	if aerr := w.Append(rec); aerr != nil {
		return errors.Join(fmt.Errorf("%w by %s after %s", ErrInterrupted, sig, done), aerr)
	}
	return fmt.Errorf("%w by %s after %s", ErrInterrupted, sig, done)
}

// runSections runs the scenario's fairness and sweep sections.
func runSections(ctx context.Context, sc *scenario.Scenario, opts Options, w *results.Writer) (*results.Summary, error) {
	summary := &results.Summary{Schema: results.SchemaVersion, Run: opts.Prefix, Scenario: sc.Name, Complete: true}
	if sc.Fairness != nil {
		s, err := runFairness(ctx, sc, opts, w)
		summary.Merge(s)
		if err != nil {
			return summary, err
		}
	}
	if sc.Sweep != nil {
		s, err := sweep.Run(ctx, sc, sweepOptions(sc, opts), w)
		summary.Merge(s)
		if err != nil {
			return summary, err
		}
	}
	if sc.Timeline != nil {
		s, err := RunTimeline(ctx, sc, opts, w)
		summary.Merge(s)
		if err != nil {
			return summary, err
		}
	}
	return summary, nil
}

// runFairness measures the scenario's fairness section (lab/fairness) in
// the lab and with the settings the scenario asks for.
func runFairness(ctx context.Context, sc *scenario.Scenario, opts Options, w *results.Writer) (*results.Summary, error) {
	f := sc.Fairness
	spec := labSpecFor(sc, opts.Prefix, sc.Synthetic != nil && sc.Synthetic.Services > 0, f.ClientOnNodeFor())
	return fairness.Run(ctx, sc, fairness.Options{Machine: opts.Machine, Lab: spec, Settings: settingsFor(sc, f.Scheduler), Log: opts.Log}, w)
}

// sweepOptions is what the sweep section (lab/sweep) needs of the run's
// options, with the settings the scenario asks for.
func sweepOptions(sc *scenario.Scenario, opts Options) sweep.Options {
	return sweep.Options{Machine: opts.Machine, Prefix: opts.Prefix, Settings: settingsFor(sc, sc.Sweep.Scheduler), PlantRules: opts.PlantRules,
		Deadline: opts.Deadline, MinRepetitions: opts.MinRepetitions, Progress: opts.Progress, Log: opts.Log}
}

// defaultRunDir is results/runs/NAME-TIMESTAMP.
func defaultRunDir(name string) string {
	return filepath.Join("results", "runs", name+"-"+time.Now().Format("20060102-150405"))
}
