package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/cost"
)

const planCheckUsage = `Usage: svclab plan check RUN_DIR --max-n N [--format markdown|json]

The holdout check of svclab plan: calibrates on the sweep's points with at
most N services, predicts every point above N (first-packet p50 and p99 at
the last and the uniform position, full and incremental sync, kernel
memory), and compares each prediction with the measurement: the error, the
target (p50 and full sync ±10%, p99 ±20%), and whether the 95% interval
covers the measurement. Exit 1 when a figure misses its target or its
interval misses the measurement. The calibration and the holdout come from
one interleaved run, so that the machine's drift spreads over both.

Examples:
  svclab plan check results/plan-holdout/native --max-n 5000
  svclab plan check results/sweep-full-ebpf --max-n 10000 --format json
`

func runPlanCheck(args []string, stdout, stderr io.Writer) error {
	var (
		maxN   int
		format string
	)
	fs := newFlagSet("plan check")
	fs.IntVar(&maxN, "max-n", 0, "")
	fs.StringVar(&format, "format", "markdown", "")
	rest, err := parseFlags(fs, args)
	if errors.Is(err, errHelp) {
		_, err = io.WriteString(stdout, planCheckUsage)
		return err
	}
	if err != nil {
		return err
	}
	if len(rest) != 1 || maxN <= 0 {
		return usagef("give one sweep run directory and --max-n N")
	}
	run, err := cost.LoadRun(rest[0])
	if err != nil {
		return usagef("%v", err)
	}
	rows, m, err := cost.Holdout(run, cost.Options{MaxN: maxN})
	if err != nil {
		return usagef("%v", err)
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Calibration cost.Source       `json:"calibration"`
			MaxN        int               `json:"max_n"`
			Probes      string            `json:"probes,omitempty"`
			Rows        []cost.HoldoutRow `json:"rows"`
		}{m.Source, maxN, cost.ProbesText(run), rows}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "calibrated on N ≤ %d of %s\n", maxN, m.Source)
		if probes := cost.ProbesText(run); probes != "" {
			fmt.Fprintln(stdout, probes)
		}
		fmt.Fprintln(stdout)
		if err := cost.WriteHoldoutMarkdown(stdout, rows); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%s\n", cost.HoldoutSummary(rows))
	}
	for _, r := range rows {
		if !r.Within() || !r.Covered {
			return &exitError{code: 1}
		}
	}
	return nil
}
