package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/svclab/svclab/sim/compare"
	"github.com/svclab/svclab/sim/report"
)

func init() {
	register(&command{name: "report", summary: "write report.md and plots (PNG, SVG) for a run directory", usage: reportUsage, run: runReport})
}

const reportUsage = `Usage: svclab report RUN_DIR... [--compare BASE] [--format text|markdown|json]

Writes, for each RUN_DIR given (so a glob such as results/runs/split-2-*
works however many runs it matches), RUN_DIR/report.md and RUN_DIR/plots/*.png and *.svg: latency against
services per dataplane with the fitted lines, CPU per connection, sync time,
and a bar chart per fairness run. It works on a run killed half way: the
completed points in results.jsonl are aggregated again. Needs no root.

Options:
  --compare BASE   also write RUN_DIR/compare.html: one self-contained page
                   comparing BASE (a run directory or results.jsonl) with this
                   run, with the plots embedded (as svclab compare --html).
                   BASE is read first: a BASE that cannot be read leaves
                   report.md as it was
  --format F       what goes to stdout: text (default: the files written),
                   markdown (report.md itself, e.g. >> $GITHUB_STEP_SUMMARY)
                   or json ({"report": path, "plots": [paths]}; also --json)

Examples:
  svclab report results/runs/sweep-quick-20261129-190102
  svclab report results/sweep-full && xdg-open results/sweep-full/report.md
  svclab report new-run --compare results/baseline/ci-smoke
  svclab report "$RUN" --format markdown >> "$GITHUB_STEP_SUMMARY"
`

func runReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	base := fs.String("compare", "", "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("give a run directory")
	}
	for _, dir := range rest {
		if err := reportOne(dir, *base, format.value, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// reportOne writes one run directory's report (and compare.html with
// --compare BASE, read before report.md is touched).
func reportOne(dir, base string, format outputFormat, stdout, stderr io.Writer) error {
	var cmp *compare.Result
	var err error
	if base != "" {
		if cmp, err = loadAndCompare(base, dir, compare.Options{}); err != nil {
			return err
		}
	}
	rep, err := report.WriteReport(dir)
	if errors.Is(err, report.ErrEmptyRun) {
		return &exitError{code: 2, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	if err := printReport(stdout, format, rep); err != nil {
		return err
	}
	if cmp == nil {
		return nil
	}
	return writeHTMLFile(filepath.Join(dir, "compare.html"), cmp, stderr)
}

// printReport says what was written, or prints report.md (markdown).
func printReport(w io.Writer, format outputFormat, rep report.Report) error {
	switch format {
	case formatJSON:
		return writeJSON(w, rep)
	case formatMarkdown:
		md, err := os.ReadFile(rep.Markdown)
		if err != nil {
			return err
		}
		_, err = w.Write(md)
		return err
	}
	fmt.Fprintf(w, "report: %s\n", rep.Markdown)
	for _, p := range rep.Plots {
		fmt.Fprintf(w, "plot:   %s\n", p)
	}
	return nil
}
