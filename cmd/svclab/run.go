package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/lab/preflight"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/report"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "run", summary: "run a scenario in the lab and record the results", usage: runUsage, run: runRun})
}

const runUsage = `Usage: svclab run SCENARIO [options]

Builds a lab (network namespaces for a node, a client and the pods), programs
the rules kube-proxy would, sends real traffic, and records the results in a
run directory: results.jsonl (appended as the run goes), meta.json and
summary.json. SCENARIO is a file path or the name of an embedded scenario
(svclab --help lists them). Needs root.

Options:
  --out DIR          run directory (default results/runs/NAME-TIMESTAMP)
  --json             print summary.json on stdout (the table goes to stderr)
  --dataplane LIST   override the scenario's dataplanes, e.g. iptables-legacy,nftables
  --connections N    override the number of connections per measurement
  --kernel K         auto (default): the host kernel, or a user-mode-linux guest when a
                     dataplane is ipvs and the host has no IPVS; host; uml (always the guest)

Examples:
  sudo svclab run split-2
  sudo svclab run split-5 --dataplane iptables-legacy,iptables-nft,nftables
  sudo svclab run keepalive-skew --json | jq '.runs[0].endpoints'
  sudo svclab run ./my-scenario.yaml --out /tmp/run1
  sudo svclab run ipvs-rr            # boots a user-mode-linux guest when the host lacks IPVS
`

type runFlags struct {
	out, dataplanes, kernel string
	json                    bool
	connections             int
	// dataplaneSet and connectionsSet say the flag was given (even as ""/0).
	dataplaneSet, connectionsSet bool
}

// passthrough repeats the overrides for the same command in a guest.
func (f runFlags) passthrough() []string {
	var args []string
	if f.dataplaneSet {
		args = append(args, "--dataplane", f.dataplanes)
	}
	if f.connectionsSet {
		args = append(args, "--connections", fmt.Sprint(f.connections))
	}
	if f.json {
		args = append(args, "--json")
	}
	return args
}

func runRun(args []string, stdout, stderr io.Writer) error {
	var f runFlags
	fs := newFlagSet("run")
	fs.StringVar(&f.out, "out", "", "")
	fs.StringVar(&f.dataplanes, "dataplane", "", "")
	fs.BoolVar(&f.json, "json", false, "")
	fs.IntVar(&f.connections, "connections", 0, "")
	fs.StringVar(&f.kernel, "kernel", "auto", "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give exactly one scenario (a path or an embedded name)")
	}
	fs.Visit(func(fl *flag.Flag) {
		f.dataplaneSet = f.dataplaneSet || fl.Name == "dataplane"
		f.connectionsSet = f.connectionsSet || fl.Name == "connections"
	})
	sc, err := scenario.Load(rest[0])
	if err != nil {
		return err
	}
	if sc, err = applyRunOverrides(sc, f); err != nil {
		return err
	}
	guest, err := needsGuest(sc, f.kernel)
	if err != nil {
		return err
	}
	if guest {
		return runInGuest(rest[0], f, stdout, stderr)
	}
	if err := preflightFor(sc); err != nil {
		return err
	}
	return runScenario(sc, f, stdout, stderr)
}

func applyRunOverrides(sc *scenario.Scenario, f runFlags) (*scenario.Scenario, error) {
	if sc.Fairness == nil && sc.Sweep == nil {
		return nil, usagef("scenario %s has neither a fairness: nor a sweep: section; nothing to run (svclab render shows its rules)", sc.Name)
	}
	var err error
	if f.dataplaneSet {
		if sc, err = sc.WithDataplanes(strings.Split(f.dataplanes, ",")); err != nil {
			return nil, usagef("--dataplane %q: %v", f.dataplanes, err)
		}
	}
	if f.connectionsSet {
		if sc, err = sc.WithConnections(f.connections); err != nil {
			return nil, usagef("--connections %d: %v", f.connections, err)
		}
	}
	return sc, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// preflightFor checks root, namespaces and the tools the dataplanes need.
func preflightFor(sc *scenario.Scenario) error {
	bins := []string{"ip", "conntrack"}
	for _, d := range sc.Dataplanes() {
		switch d {
		case "iptables-legacy":
			bins = append(bins, "iptables-legacy", "iptables-legacy-restore", "iptables-legacy-save")
		case "iptables-nft":
			bins = append(bins, "iptables-nft", "iptables-nft-restore", "iptables-nft-save")
		case "nftables":
			bins = append(bins, "nft")
		case "ipvs":
			bins = append(bins, "ipset", "ipvsadm", "iptables-legacy-restore")
		}
	}
	return preflight.Error(preflight.Check(preflight.Requirements{Root: true, Netns: true, Binaries: bins}))
}

// runScenario runs the scenario's sections and writes the run directory.
func runScenario(sc *scenario.Scenario, f runFlags, stdout, stderr io.Writer) error {
	prefix := topo.NewPrefix()
	dir := defaultRunDir(f.out, sc.Name)
	w, err := results.Create(dir)
	if err != nil {
		return err
	}
	defer w.Close()
	kind := "fairness"
	if sc.Fairness == nil {
		kind = "sweep"
	}
	meta := runner.CollectMeta(prefix, sc, kind)
	if err := results.WriteJSON(dir, results.MetaFile, meta); err != nil {
		return err
	}
	if err := w.Append(results.Record{Type: results.TypeMeta, Meta: &meta}); err != nil {
		return err
	}
	labMu.Lock()
	runPrefix = prefix
	labMu.Unlock()
	ctx, stop := interruptContext(stderr)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	logf("svclab: run %s of scenario %s → %s", prefix, sc.Name, dir)
	bar := newProgress(stderr)
	defer bar.finish()
	opts := runner.Options{OutDir: dir, Prefix: prefix, Log: bar.logf(logf), OnLab: rememberLab, Progress: bar.set}
	summary, runErr := runSections(ctx, sc, opts, w)
	if summary != nil {
		if err := results.WriteJSON(dir, results.SummaryFile, summary); err != nil {
			return err
		}
		printSummary(summary, f.json, stdout, stderr)
	}
	if runErr != nil {
		return fmt.Errorf("%w (completed results are in %s)", runErr, dir)
	}
	fmt.Fprintf(stderr, "\nresults: %s\n", dir)
	return nil
}

func runSections(ctx context.Context, sc *scenario.Scenario, opts runner.Options, w *results.Writer) (*results.Summary, error) {
	summary := &results.Summary{Schema: results.SchemaVersion, Run: opts.Prefix, Scenario: sc.Name, Complete: true}
	if sc.Fairness != nil {
		s, err := runner.RunFairness(ctx, sc, opts, w)
		merge(summary, s)
		if err != nil {
			return summary, err
		}
	}
	if sc.Sweep != nil {
		s, err := runner.RunSweep(ctx, sc, opts, w)
		merge(summary, s)
		if err != nil {
			return summary, err
		}
	}
	return summary, nil
}

// merge adds a section's summary to the run's.
func merge(into, s *results.Summary) {
	if s == nil {
		return
	}
	into.Runs = append(into.Runs, s.Runs...)
	into.Points = append(into.Points, s.Points...)
	into.Fits = append(into.Fits, s.Fits...)
	into.Warnings = append(into.Warnings, s.Warnings...)
	into.Complete = into.Complete && s.Complete
	switch {
	case into.Kind == "":
		into.Kind = s.Kind
	case into.Kind != s.Kind:
		into.Kind = "mixed"
	}
}

func printSummary(s *results.Summary, asJSON bool, stdout, stderr io.Writer) {
	table := stdout
	if asJSON {
		table = stderr
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(s)
	}
	_ = report.FairnessTable(table, s)
	if len(s.Points) > 0 {
		fmt.Fprintln(table)
		_ = report.SweepTable(table, s)
	}
}
