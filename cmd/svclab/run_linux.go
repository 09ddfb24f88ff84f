package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/guest"
	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/sim/report"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "run", summary: "run a scenario in the lab and record the results", usage: withVersions(runUsage), run: runRun})
	register(&command{name: guest.Command, summary: "run a job in a user-mode-linux guest", usage: "internal\n", run: runGuestJob, hidden: true})
	inputErrors = append(inputErrors, func(err error) bool { return errors.Is(err, host.ErrNotRoot) }) // run without sudo: exit 2
}

const runUsage = `Usage: svclab run SCENARIO [options]

Builds a lab (network namespaces for a node, a client and the pods), programs
the rules kube-proxy would, sends real traffic, and records the results in a
run directory: results.jsonl (appended as the run goes), meta.json and
summary.json. SCENARIO is a file path or the name of an embedded scenario
(svclab --help lists them). Needs root.

Ctrl-C (or SIGTERM) stops the run: it removes the lab, appends an
"interrupted" record and exits 130 (143). After kill -9, 'svclab cleanup'
removes what the run left.

Options:
  --out DIR          run directory (default results/runs/NAME-TIMESTAMP); must not hold results
  --progress auto|plain|none
                     how progress is shown on stderr: auto (default) is a bar
                     with an ETA on a terminal and plain lines otherwise or
                     when CI is set; plain is a line per tenth of the run, no
                     carriage returns (CI logs), and one every 2 minutes while
                     a long step (a large ruleset's load) is under way; the
                     time left stays within a time budget (plan calibrate's
                     --duration); none shows none
  --format text|markdown|json
                     output (default text; markdown for $GITHUB_STEP_SUMMARY;
                     json, or --json: summary.json on stdout, the table on stderr)
  --dataplane LIST   override the scenario's dataplanes, e.g. iptables-legacy,nftables
  --connections N    override the number of connections per measurement
  --kernel K         auto (default): the host kernel, or a user-mode-linux guest when a
                     dataplane is ipvs and the host has no IPVS; host; uml (always the guest)
  --guest-timeout D  how long a run in the guest may take before the guest is killed
                     (default 40m; what results.jsonl has by then is kept), e.g. 2h
  --engine E         native (svclab's renderer) or kube-proxy (kube-proxy's own proxier
                     programs the node and times its own syncs; make kube-proxy builds it)
  --kube-proxy-version V   VERSIONS: whose rules (default the scenario's, else the newest)
  --repetitions N    override the sweep's repetitions (svclab ab runs one at a time)
  --plant-rules N    plant a known slowdown: N never-matching nftables rules that every
                     packet through each sweep node passes (for measuring a gate's power;
                     the node only, never the host; recorded in meta.json)

Examples:
  sudo svclab run split-2
  sudo svclab run split-5 --dataplane iptables-legacy,iptables-nft,nftables
  sudo svclab run keepalive-skew --json | jq '.runs[0].endpoints'
  sudo svclab run ./my-scenario.yaml --out /tmp/run1
  sudo svclab run ipvs-rr            # boots a user-mode-linux guest when the host lacks IPVS
  sudo svclab run results/plan-holdout/holdout-ipvs-guest-b.yaml --guest-timeout 90m
  sudo svclab run split-2 --engine kube-proxy --kube-proxy-version 1.35
  sudo svclab run kube-proxy-sync --kube-proxy-version 1.37 --out /tmp/kp137
`

// maxPlantRules bounds --plant-rules (render.PlantScript's address range).
const maxPlantRules = 1 << 17

type runFlags struct {
	out, dataplanes, kernel string
	engine, version         string
	format                  *formatFlag
	progress                *progressMode
	connections             int
	repetitions, plantRules int
	// dataplaneSet and connectionsSet say the flag was given (even as ""/0).
	dataplaneSet, connectionsSet bool
	// deadline bounds a sweep's repetitions (runner.Options.Deadline).
	deadline time.Time
	// guestTimeout bounds a run in a user-mode-linux guest.
	guestTimeout time.Duration
}

// overrides are the flags' changes to the scenario, as a guest makes them
// again (see lab/guest); applyRunOverrides makes them here.
func (f runFlags) overrides() guest.Overrides {
	var o guest.Overrides
	if f.dataplaneSet {
		o.Dataplanes = strings.Split(f.dataplanes, ",")
	}
	if f.connectionsSet {
		o.Connections = &f.connections
	}
	o.Engine, o.KubeProxyVersion = f.engine, f.version
	return o
}

func runRun(args []string, stdout, stderr io.Writer) error {
	var f runFlags
	fs := newFlagSet("run")
	fs.StringVar(&f.out, "out", "", "")
	fs.StringVar(&f.dataplanes, "dataplane", "", "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	f.progress = addProgressFlag(fs)
	fs.IntVar(&f.connections, "connections", 0, "")
	fs.StringVar(&f.kernel, "kernel", "auto", "")
	fs.DurationVar(&f.guestTimeout, "guest-timeout", guest.DefaultTimeout, "")
	fs.StringVar(&f.engine, "engine", "", "")
	fs.StringVar(&f.version, "kube-proxy-version", "", "")
	fs.IntVar(&f.repetitions, "repetitions", 0, "")
	fs.IntVar(&f.plantRules, "plant-rules", 0, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give exactly one scenario (a path or an embedded name)")
	}
	if f.guestTimeout <= 0 {
		return usagef("--guest-timeout %v: give a positive duration, e.g. 90m", f.guestTimeout)
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
	return runAndPrint(sc, f, stdout, stderr)
}

func applyRunOverrides(sc *scenario.Scenario, f runFlags) (*scenario.Scenario, error) {
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
	if f.repetitions != 0 {
		if sc, err = sc.WithRepetitions(f.repetitions); err != nil {
			return nil, usagef("--repetitions %d: %v", f.repetitions, err)
		}
	}
	if f.plantRules < 0 || f.plantRules > maxPlantRules {
		return nil, usagef("--plant-rules %d: use 0 to %d", f.plantRules, maxPlantRules)
	}
	if f.engine != "" || f.version != "" {
		if sc, err = sc.WithKubeProxy(f.engine, f.version); err != nil {
			return nil, usagef("--engine %q --kube-proxy-version %q: %v", f.engine, f.version, err)
		}
	}
	return sc, nil
}

// runAndPrint runs sc, on this kernel or in a guest (see lab/guest), and
// prints its summary.
func runAndPrint(sc *scenario.Scenario, f runFlags, stdout, stderr io.Writer) error {
	ctx, in, stop := interruptContext(stderr)
	defer stop()
	bar := newProgress(stderr, *f.progress, f.deadline)
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	opts := guest.Options{
		RunOptions: runner.RunOptions{Options: runner.Options{OutDir: f.out, Log: bar.logf(logf), Progress: bar.set, PlantRules: f.plantRules, Deadline: f.deadline}, Signal: in.name},
		Kernel:     f.kernel, Overrides: f.overrides(), Stdout: stdout, Stderr: stderr, Timeout: f.guestTimeout,
	}
	out, err := guest.Run(ctx, sc, opts)
	bar.finish()
	if out != nil && out.Summary != nil {
		meta, _ := results.ReadMeta(out.Dir) // nil: the headline names no engine
		printSummary(out.Summary, meta, f.format.value, stdout, stderr)
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: in.exitCode(), msg: err.Error() + completedHint(out)}
	}
	if err != nil {
		return fmt.Errorf("%w%s", err, completedHint(out))
	}
	fmt.Fprintf(stderr, "\nresults: %s\n", out.Dir)
	return nil
}

// runGuestJob is svclab run's guest side (see lab/guest): it runs the job
// the host wrote; the host prints the summary.
func runGuestJob(args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 {
		return usagef("internal command: give the job file")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return guest.Serve(ctx, args[0], func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) })
}

// completedHint points at the run directory when it holds measurements.
func completedHint(out *runner.Outcome) string {
	if out == nil || out.Summary == nil || len(out.Summary.Runs)+len(out.Summary.Points) == 0 {
		return ""
	}
	return " (completed results are in " + out.Dir + ")"
}

// printSummary prints a run's summary: the tables, then the headline
// (what the run found, so it is the screen a run ends with). With json,
// summary.json goes to stdout and the rest to stderr; markdown (for
// $GITHUB_STEP_SUMMARY) puts the headline first and the tables in a
// fenced block.
func printSummary(s *results.Summary, meta *results.Meta, format outputFormat, stdout, stderr io.Writer) {
	tables := func(w io.Writer) error {
		_ = report.FairnessTable(w, s)
		if len(s.Points) > 0 {
			fmt.Fprintln(w)
			_ = report.SweepTable(w, s)
		}
		return nil
	}
	headline := report.Headline(s, meta)
	switch format {
	case formatMarkdown:
		fmt.Fprintf(stdout, "### svclab run %s\n\n", s.Scenario)
		for _, l := range headline {
			fmt.Fprintf(stdout, "- %s\n", markdownCell(l))
		}
		fmt.Fprintln(stdout)
		_ = printResult(stdout, format, "details", s, tables)
	case formatJSON:
		_ = writeJSON(stdout, s)
		_ = tables(stderr)
		writeHeadline(stderr, headline)
	default:
		_ = tables(stdout)
		writeHeadline(stdout, headline)
	}
	for _, w := range s.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
}

// writeHeadline writes the headline as a block under "found:".
func writeHeadline(w io.Writer, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nfound:")
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
}
