package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/svclab/svclab/sim/report"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "demo", summary: "the default scenario end to end: rules, the 50% split, a quick sweep, plots", usage: demoUsage, run: runDemo})
}

const demoUsage = `Usage: svclab demo [--out DIR]

Runs the embedded default scenario "demo" (what 'make demo' does): prints the
size of the rules each kube-proxy mode writes for kube-proxy's two-endpoint
example among 10,000 services, proves the 50% split with 20,000 connections,
sweeps iptables-nft against nftables, and writes report.md and plots. Takes
under two minutes. Needs root.

Options:
  --out DIR                   the run directory (default results/runs/demo-TIME)
  --progress auto|plain|none  as svclab run's (plain: lines for CI logs)

Examples:
  sudo svclab demo
  sudo svclab demo --out /tmp/demo
`

func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo")
	out := fs.String("out", filepath.Join("results", "runs", "demo-"+time.Now().Format("20060102-150405")), "")
	format := addFormatFlag(fs, formatText) // a walk-through: text
	progress := addProgressFlag(fs)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "== the rules: kube-proxy's two-endpoint example among 10,000 synthetic services")
	m, kp, err := modelFor(renderFlags{scenario: "two-endpoints", services: -1, endpoints: 2, seed: 1})
	if err != nil {
		return err
	}
	if err := renderSummary(stdout, m, kp); err != nil {
		return err
	}
	sc, err := scenario.Load("demo")
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\n== the lab: the 50% split, then iptables-nft against nftables")
	if err := runAndPrint(sc, runFlags{out: *out, kernel: "host", format: format, progress: progress}, stdout, stderr); err != nil {
		return err
	}
	rep, err := report.WriteReport(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nreport: %s\n", rep.Markdown)
	for _, p := range rep.Plots {
		if filepath.Ext(p) == ".png" {
			fmt.Fprintf(stdout, "plot:   %s\n", p)
		}
	}
	return nil
}
