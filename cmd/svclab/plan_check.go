package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/scenario"
)

const planCheckUsage = `Usage: svclab plan check RUN_DIR... --max-n N [--calibration DIR [--from M] [--walks-from-run]] [--scenario FILE [--dataplane LIST]] [--format markdown|json]

The holdout check of svclab plan: calibrates on the sweep's points with at
most N services, predicts every point above N (first-packet p50 and p99 at
the last and the uniform position, full and incremental sync, kernel
memory, CPU per connection to the last Service), and compares each prediction with the measurement: the error, the
target (p50 and full sync ±10%, p99 ±20%), and whether the 95% interval
covers the measurement. Exit 1 when a figure misses its target or its
interval misses the measurement. The calibration and the holdout come from
one interleaved run, so that the machine's drift spreads over both. Under
each table come the predictions' warnings, each once (in JSON each row's
"warnings"): what svclab plan would have said beside the same figures, but
for the extrapolation past calibration that the ×calibration column shows.

Given several runs of one recipe, it checks each, then tabulates every
figure across them: its error in each run, and in how many runs it met its
target and its interval covered.

With --calibration DIR the model comes from DIR instead (a svclab plan
calibrate directory, or any sweep run), on its points with at most N
services, and every point of each run above N is predicted from it: how a
calibration made one time holds for a sweep measured another (the
machine's drift between the two is part of the error). With --from M the
run's points of at least M services are predicted instead: a calibration
that reaches past them (results/sweep-full-default, the binary's embedded
default, goes to 100,000) checks a run's smaller points with --max-n
100000 --from M. With --walks-from-run the calibration's machine walks
(iptables-nft-restore's chain list, nft's chain dump, the kernel's
anonymous sets: steps this VM moved 2-6× within hours) are replaced by the
ones each run timed itself, which takes the machine's move between
calibration and measurement out of the error as far as the run's walks
show it (results/plan-walks-from-run: not all of it); a diagnostic, which a
plan made before its measurement cannot use, said so above the table.

With --scenario FILE (the scenario the runs were made from, checked
against the hash their meta.json recorded) a sweep whose services a
synthetic.mix shapes (svclab import --scenario writes one from a cluster's
objects) is predicted for the services each point loaded, as svclab plan
--objects predicts a cluster: their rules, chains and elements, and the
KUBE-SERVICES rules a connection to one of them walks. Without it every
point is predicted for N one-port services, which a mix's are not. Runs
made with svclab run --dataplane LIST recorded the scenario with that
override: give the same --dataplane LIST here.

Examples:
  svclab plan check results/plan-holdout/native --max-n 5000
  svclab plan check results/plan-calibrate-check/measured --calibration results/plan-calibrate-check/calibration-a --max-n 5000
  svclab plan check results/sweep-full-ebpf --max-n 10000 --format json
  svclab plan check results/plan-holdout/native-j results/plan-holdout/native-k --max-n 5000
  svclab plan check results/plan-mix-check/measured --calibration results/plan-mix-check/calibration --max-n 5000 --scenario results/plan-mix-check/cluster-500-x20.yaml
  svclab plan check results/plan-families/partial-family/B1 --calibration results/plan-recent/calibration --max-n 5000 --scenario results/plan-recent/mix-iptables.yaml --dataplane iptables-legacy
  svclab plan check results/plan-families/mix-iptables-partial --calibration results/sweep-full-default --max-n 100000 --from 5000 --scenario results/plan-recent/mix-iptables.yaml
  svclab plan check results/plan-families/mix-iptables-nft-sync --calibration results/plan-families/end-to-end/calibration --max-n 5000 --scenario results/plan-families/mix-iptables-nft-sync.yaml --walks-from-run
`

func runPlanCheck(args []string, stdout, stderr io.Writer) error {
	var (
		maxN, from                                    int
		format, calibration, scenarioFile, dataplanes string
		walksFromRun                                  bool
	)
	fs := newFlagSet("plan check")
	fs.IntVar(&maxN, "max-n", 0, "")
	fs.IntVar(&from, "from", 0, "")
	fs.StringVar(&calibration, "calibration", "", "")
	fs.StringVar(&scenarioFile, "scenario", "", "")
	fs.StringVar(&dataplanes, "dataplane", "", "")
	fs.StringVar(&format, "format", "markdown", "")
	fs.BoolVar(&walksFromRun, "walks-from-run", false, "")
	rest, err := parseFlags(fs, args)
	if errors.Is(err, errHelp) {
		_, err = io.WriteString(stdout, planCheckUsage)
		return err
	}
	if err != nil {
		return err
	}
	if len(rest) == 0 || maxN <= 0 {
		return usagef("give one or more sweep run directories and --max-n N")
	}
	var cal *cost.Run
	if calibration != "" {
		if cal, err = cost.LoadRun(calibration); err != nil {
			return usagef("--calibration: %v", err)
		}
	}
	if walksFromRun && cal == nil {
		return usagef("--walks-from-run needs --calibration DIR: a run checked against its own points already has its own walks")
	}
	var sc *scenario.Scenario
	if scenarioFile != "" {
		if cal == nil {
			return usagef("--scenario needs --calibration DIR: the model is calibrated on one-port services (svclab plan calibrate) and predicts the mix's points")
		}
		if sc, err = scenario.Load(scenarioFile); err != nil {
			return usagef("--scenario: %v", err)
		}
	}
	if dataplanes != "" {
		if sc == nil {
			return usagef("--dataplane needs --scenario FILE: it is the override the runs were made with, applied to that scenario")
		}
		if sc, err = sc.WithDataplanes(strings.Split(dataplanes, ",")); err != nil {
			return usagef("--dataplane: %v", err)
		}
	}
	checks := make([]holdoutCheck, len(rest))
	for i, dir := range rest {
		if checks[i], err = checkHoldout(dir, cal, sc, maxN, from, walksFromRun); err != nil {
			return err
		}
		for _, w := range checks[i].model.Warnings {
			if len(rest) > 1 {
				w = dir + ": " + w
			}
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	if format == "json" {
		err = writeHoldoutJSON(stdout, checks, maxN)
	} else {
		err = writeHoldoutText(stdout, checks, maxN)
	}
	if err != nil {
		return err
	}
	for _, c := range checks {
		if !cost.HoldoutPasses(c.rows) {
			return &exitError{code: 1}
		}
	}
	return nil
}

// holdoutCheck is one run directory's holdout.
type holdoutCheck struct {
	dir   string
	cal   *cost.Run // the run the model was calibrated on
	model *cost.Model
	rows  []cost.HoldoutRow
	// walks are the machine walks taken from the run itself
	// (--walks-from-run), none when priced with the calibration's.
	walks []string
}

// checkHoldout checks the run in dir against a calibration on cal's
// points with N ≤ maxN (nil cal: the run's own), its points from from
// services (0: above maxN) predicted for the services of sc (nil: N
// one-port services); with walksFromRun the calibration's machine walks are
// the run's own (cost.Run.WithWalksOf).
func checkHoldout(dir string, cal *cost.Run, sc *scenario.Scenario, maxN, from int, walksFromRun bool) (holdoutCheck, error) {
	run, err := cost.LoadRun(dir)
	if err != nil {
		return holdoutCheck{}, usagef("%v", err)
	}
	if sc != nil {
		if err := run.WithScenario(sc); err != nil {
			return holdoutCheck{}, usagef("--scenario: %v", err)
		}
	}
	if cal == nil {
		cal = run
	}
	var walks []string
	if walksFromRun {
		cal, walks = cal.WithWalksOf(run)
	}
	rows, m, err := cost.HoldoutFrom(cal, run, cost.Options{MaxN: maxN}, from)
	if err != nil {
		return holdoutCheck{}, usagef("%s: %v", dir, err)
	}
	if cal != run {
		if notes := cal.Source.Machine.Compare(run.Source.Machine).Notes; len(notes) > 0 {
			m.Warnings = append(m.Warnings, fmt.Sprintf("the calibration's machine differs from the run's: %s", strings.Join(notes, "; ")))
		}
	}
	if walksFromRun && len(walks) == 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("--walks-from-run: %s timed no machine walk (an iptables-nft, nftables or sync-probing sweep does): priced with the calibration's", dir))
	}
	return holdoutCheck{dir: dir, cal: cal, model: m, rows: rows, walks: walks}, nil
}

// holdoutJSON is one run's check as JSON.
type holdoutJSON struct {
	Dir         string      `json:"dir,omitempty"`
	Calibration cost.Source `json:"calibration"`
	MaxN        int         `json:"max_n"`
	Probes      string      `json:"probes,omitempty"`
	// WalksFromRun are the machine walks taken from the run itself
	// (--walks-from-run).
	WalksFromRun []string          `json:"walks_from_run,omitempty"`
	Rows         []cost.HoldoutRow `json:"rows"`
}

// writeHoldoutJSON writes one run's check as before, or several runs'
// checks and the figures across them.
func writeHoldoutJSON(w io.Writer, checks []holdoutCheck, maxN int) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	runs := make([]holdoutJSON, len(checks))
	for i, c := range checks {
		runs[i] = holdoutJSON{Calibration: c.model.Source, MaxN: maxN, Probes: cost.ProbesText(c.cal), WalksFromRun: c.walks, Rows: c.rows}
	}
	if len(checks) == 1 {
		return enc.Encode(runs[0])
	}
	for i := range runs {
		runs[i].Dir = checks[i].dir
	}
	return enc.Encode(struct {
		Runs   []holdoutJSON        `json:"runs"`
		Across []cost.HoldoutAcross `json:"across"`
	}{runs, cost.HoldoutAcrossRuns(holdoutRows(checks))})
}

// writeHoldoutText writes each run's table and, for several runs, the
// table across them.
func writeHoldoutText(w io.Writer, checks []holdoutCheck, maxN int) error {
	for i, c := range checks {
		if len(checks) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "## %s\n\n", c.dir)
		}
		fmt.Fprintf(w, "calibrated on N ≤ %d of %s\n", maxN, c.model.Source)
		if probes := cost.ProbesText(c.cal); probes != "" {
			fmt.Fprintln(w, probes)
		}
		if len(c.walks) > 0 {
			fmt.Fprintf(w, "priced with the measured run's own %s (--walks-from-run), not the calibration's: the machine's move between the two runs is out of the error as far as the run's walks show it\n",
				strings.Join(c.walks, ", "))
		}
		fmt.Fprintln(w)
		if err := cost.WriteHoldoutMarkdown(w, c.rows); err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s\n", cost.HoldoutSummary(c.rows))
		cost.WriteHoldoutWarnings(w, c.rows)
	}
	if len(checks) == 1 {
		return nil
	}
	names := make([]string, len(checks))
	for i, c := range checks {
		names[i] = filepath.Base(c.dir)
	}
	fmt.Fprintf(w, "\n## Across the %d runs\n\nEach run's error (predicted/measured − 1; bold: outside the target):\n\n", len(checks))
	if err := cost.WriteHoldoutAcrossMarkdown(w, cost.HoldoutAcrossRuns(holdoutRows(checks)), names); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", cost.HoldoutAcrossSummary(holdoutRows(checks)))
	return err
}

func holdoutRows(checks []holdoutCheck) [][]cost.HoldoutRow {
	out := make([][]cost.HoldoutRow, len(checks))
	for i, c := range checks {
		out[i] = c.rows
	}
	return out
}
