package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/svclab/svclab/sim/compare"
)

func init() {
	register(&command{name: "compare", summary: "compare two runs like benchstat: medians, change, p-values", usage: compareUsage, run: runCompare})
}

const compareUsage = `Usage: svclab compare BASE NEW [options]

Compares two runs, each a run directory or a results.jsonl file, like
benchstat. For every metric (p50_us, p90_us, p99_us, cpu_us_per_conn,
conn_per_s, sync_full_s, sync_incremental_s; for fairness runs chi2_p, jain,
p50_us, p99_us, conn_per_s) at every point both runs measured (dataplane ×
services × position; for fairness runs dataplane × service), the samples are
the per-repetition records. It prints each side's median ± its 95% interval,
the change of the median, and the two-sided Mann-Whitney U p-value; "~" means
the change is not significant at alpha. A last column says "worse" or
"better" (latency, CPU and sync time: higher is worse; conn/s, Jain's index
and the chi-square p-value: lower is worse). It warns when samples are too
few, when the environments differ (kernel, CPU, iptables and nft versions
and backends, guest kernel, svclab version) and when points are on one side
only. Needs no root.

Different dataplanes can be compared: --base-dataplane and --new-dataplane
keep one dataplane per side and match points on services and position. When
each run holds a single dataplane and they differ, that happens by itself;
the output says how points were matched.

Options:
  --alpha A               significance level (default 0.05)
  --format text|markdown|csv|json
                          output format on stdout (default text; markdown for
                          $GITHUB_STEP_SUMMARY; --json is --format json)
  --html FILE             also write a self-contained HTML report with the
                          table and plots (both runs overlaid) to FILE
  --base-dataplane D      compare only this dataplane of BASE
  --new-dataplane D       ... with this dataplane of NEW (each defaults to
                          the other)

Exit status: 0 when compared, 2 on unusable input (a missing run, another
schema version, no common point). Use svclab gate for a pass/fail verdict.

Examples:
  svclab compare results/baseline/ci-smoke results/runs/ci-smoke-20261130-101500
  svclab compare old/results.jsonl new/results.jsonl --format csv > delta.csv
  svclab compare nft-run ipt-run --base-dataplane nftables --new-dataplane iptables-nft
  svclab compare base new --html compare.html && xdg-open compare.html
`

// compareFlags are the options compare and gate share.
type compareFlags struct {
	opts compare.Options
}

func (f *compareFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&f.opts.Alpha, "alpha", 0.05, "")
	fs.StringVar(&f.opts.BaseDataplane, "base-dataplane", "", "")
	fs.StringVar(&f.opts.NewDataplane, "new-dataplane", "", "")
}

// check validates the shared options.
func (f *compareFlags) check() error {
	if !(f.opts.Alpha > 0 && f.opts.Alpha < 1) {
		return usagef("--alpha %v: want a level between 0 and 1, e.g. 0.05", f.opts.Alpha)
	}
	return nil
}

func runCompare(args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("compare")
	f.register(fs)
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON, formatCSV)
	htmlPath := fs.String("html", "", "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 2 {
		return usagef("give two runs: BASE NEW")
	}
	if err := f.check(); err != nil {
		return err
	}
	res, err := loadAndCompare(rest[0], rest[1], f.opts)
	if err != nil {
		return err
	}
	if err := compareWriters[format.value](stdout, res); err != nil {
		return err
	}
	if *htmlPath != "" {
		return writeHTMLFile(*htmlPath, res, stderr)
	}
	return nil
}

var compareWriters = map[outputFormat]func(io.Writer, *compare.Result) error{
	formatText:     compare.WriteText,
	formatMarkdown: compare.WriteMarkdown,
	formatCSV:      compare.WriteCSV,
	formatJSON:     compare.WriteJSON,
}

// loadAndCompare loads both runs and compares them; any failure is
// unusable input (exit 2).
func loadAndCompare(basePath, newPath string, opts compare.Options) (*compare.Result, error) {
	base, err := compare.Load(basePath)
	if err != nil {
		return nil, &exitError{code: 2, msg: "base: " + err.Error()}
	}
	newRun, err := compare.Load(newPath)
	if err != nil {
		return nil, &exitError{code: 2, msg: "new: " + err.Error()}
	}
	res, err := compare.Compare(base, newRun, opts)
	if err != nil {
		return nil, &exitError{code: 2, msg: err.Error()}
	}
	return res, nil
}

func writeHTMLFile(path string, res *compare.Result, stderr io.Writer) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create HTML report %s: %w", path, err)
	}
	if err := compare.WriteHTML(f, res); err != nil {
		f.Close()
		return fmt.Errorf("write HTML report %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write HTML report %s: %w", path, err)
	}
	fmt.Fprintf(stderr, "html: %s\n", path)
	return nil
}
