package main

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/cluster"
)

func init() {
	register(&command{name: "merge", summary: "join cluster cells' run directories into one comparison", usage: mergeUsage, run: runMerge})
}

const mergeUsage = `Usage: svclab merge DIR... [--out DIR] [--format text|markdown|json]

Joins run directories (svclab cluster run's cells, with their cell.json; or
plain svclab run directories, as pool "local") into one report: for each
cell its pool, node, CPU model, kernel, scenario, dataplane and kube-proxy
version, and per Service Jain's index, the chi-square p-value, whether the
servers' counts equal the kernel's counters, conn/s and p99; a sweep's
points in one line.

Cells of the same pool, scenario, dataplane and kube-proxy version are one
sample: it is written as one run directory OUT/POOL_SCENARIO_DATAPLANE_VERSION
(their results.jsonl records in turn) for svclab compare and gate, e.g. a
kube-proxy upgrade on one pool, or two pools on one version. A sample whose
cells ran on different CPU models is refused (exit 2): give the pool a
selector that picks one machine type.

Options:
  --out DIR        where the samples go (default: none written)
  --format F       text (default), markdown or json

Examples:
  svclab merge results/cluster/20261202-020000/cells/*
  svclab merge cells/* --out merged && svclab compare merged/old_split-2_nftables_1.37 merged/new_split-2_nftables_1.37
`

func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge")
	out := fs.String("out", "", "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usagef("give the cells' run directories")
	}
	return mergeCells(dirs, *out, format.value, stdout)
}

// mergeCells loads the cells, groups them into samples (refusing mixed CPU
// models), writes the samples under out (if set) and prints the report.
func mergeCells(dirs []string, out string, format outputFormat, stdout io.Writer) error {
	cells := make([]cluster.MergedCell, 0, len(dirs))
	for _, d := range dirs {
		c, err := cluster.LoadCell(d)
		if err != nil {
			return usagef("%v", err)
		}
		cells = append(cells, c)
	}
	samples, err := cluster.Samples(cells)
	if err != nil {
		return usagef("%v", err)
	}
	if out != "" {
		for _, s := range samples {
			if _, err := cluster.WriteSample(out, s); err != nil {
				return err
			}
		}
	}
	if err := cluster.WriteReport(stdout, cluster.Rows(samples), string(format)); err != nil {
		return fmt.Errorf("merge report: %w", err)
	}
	return nil
}
