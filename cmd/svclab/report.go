package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/svclab/svclab/sim/compare"
	"github.com/svclab/svclab/sim/report"
)

func init() {
	register(&command{name: "report", summary: "write report.md and plots (PNG, SVG) for a run directory", usage: reportUsage, run: runReport})
}

const reportUsage = `Usage: svclab report RUN_DIR [--compare BASE]

Writes RUN_DIR/report.md and RUN_DIR/plots/*.png and *.svg: latency against
services per dataplane with the fitted lines, CPU per connection, sync time,
and a bar chart per fairness run. It works on a run killed half way: the
completed points in results.jsonl are aggregated again. Needs no root.

Options:
  --compare BASE   also write RUN_DIR/compare.html: one self-contained page
                   comparing BASE (a run directory or results.jsonl) with this
                   run, with the plots embedded (as svclab compare --html)

Examples:
  svclab report results/runs/sweep-quick-20261129-190102
  svclab report results/sweep-full && xdg-open results/sweep-full/report.md
  svclab report new-run --compare results/baseline/ci-smoke
`

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	base := fs.String("compare", "", "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give one run directory")
	}
	rep, err := report.WriteReport(rest[0])
	if errors.Is(err, report.ErrEmptyRun) {
		return &exitError{code: 2, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report: %s\n", rep.Markdown)
	for _, p := range rep.Plots {
		fmt.Fprintf(stdout, "plot:   %s\n", p)
	}
	if *base == "" {
		return nil
	}
	res, err := loadAndCompare(*base, rest[0], compare.Options{})
	if err != nil {
		return err
	}
	return writeHTMLFile(filepath.Join(rest[0], "compare.html"), res, stderr)
}
