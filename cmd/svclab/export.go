package main

import (
	"fmt"
	"io"
	"os"

	"github.com/svclab/svclab/sim/compare"
)

func init() {
	register(&command{name: "export", summary: "write a run in the Go benchmark format for benchstat", usage: exportUsage, run: runExport})
}

const exportUsage = `Usage: svclab export --format bench RUN [--out FILE]

Writes RUN (a run directory or a results.jsonl file) in the Go benchmark
format, so that stock benchstat reads it: one line per repetition,

  BenchmarkSweep/dataplane=iptables-nft/services=20000/position=last 1 301.2 p50-µs 447 p90-µs ...

(fairness runs: BenchmarkFairness/dataplane=D/service=NS.NAME:PORT), after
"goos", "pkg" (svclab/SCENARIO) and "cpu" lines and a "Unit" line per metric
(assume=nothing, better=lower or higher). The rest of the environment is
written as "#" comments. Metrics that were not measured are left out.
Needs no root.

Options:
  --format bench   the output format (only bench)
  --out FILE       write to FILE instead of stdout

Examples:
  svclab export --format bench results/baseline/ci-smoke > old.txt
  svclab export --format bench new --out new.txt
  benchstat old.txt new.txt
  benchstat -col /dataplane new.txt     # dataplanes side by side
`

// formatBench is the Go benchmark format benchstat reads.
const formatBench outputFormat = "bench"

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export")
	addFormatFlag(fs, formatBench) // the only format: Go's benchmark format
	out := fs.String("out", "", "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give one run directory or results.jsonl file")
	}
	run, err := compare.Load(rest[0])
	if err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	for _, w := range run.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if *out == "" {
		return compare.WriteBench(stdout, run)
	}
	return writeBenchFile(*out, run)
}

func writeBenchFile(path string, run *compare.Run) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := compare.WriteBench(f, run); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
