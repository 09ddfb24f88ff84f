package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/abrun"
	"github.com/svclab/svclab/sim/ab"
	"github.com/svclab/svclab/sim/compare"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "ab", summary: "A/B two builds or settings in one interleaved job, and gate on the paired change", usage: abUsage, run: runAB})
}

const abUsage = `Usage: svclab ab SCENARIO [side options] [options]
       svclab ab --from DIR [options]

Runs a sweep scenario for a base side and a new side on this machine,
repetition by repetition, the two sides of each repetition in a random
order (seeded, recorded in DIR/ab.json). Repetition i of base and of new
form a pair, and each metric at each point is compared through the pairs'
ratios new/base: the log-ratio's Hodges-Lehmann estimate with its Wilcoxon
signed-rank 95% interval. A machine whose speed drifts moves both values of
a pair, so the drift cancels, which a baseline recorded another day cannot
do. Each side's repetition is its own 'svclab run SCENARIO --repetitions 1'
(of that side's svclab binary); DIR/base and DIR/new are ordinary run
directories that svclab report, compare and gate read. Needs root (but
--from does not).

The verdict is svclab gate's, on a few primary comparisons only (the
scenario's gate: list, see svclab help scenario; by default p10_us and
sync_full_s at the largest service count of each dataplane), with
Benjamini-Hochberg over them; every other metric and point is reported:

  REGRESSION    a primary change is worse than its threshold and
                significant (signed-rank q ≤ alpha)            exit 1
  PASS          every primary interval excludes a worse change beyond
                its threshold                                  exit 0
  INCONCLUSIVE  otherwise; says how many repetitions would decide  exit 3

A "power:" clause gives the widest primary interval: changes smaller than
that could not have been told from none.

Side options (each for --base-… and --new-…; the sides differ in these):
  --base-svclab PATH          the svclab binary that runs the side (default
                              this one): A/B two builds
  --base-kube-proxy-version V --base-engine E   (svclab run's options)
  --base-tools DIR            put DIR first on PATH: other iptables/nft tools
  --base-plant-rules N        plant a known slowdown (svclab run --plant-rules)
  --base-arg ARG              any other svclab run option; repeat

Options:
  --repetitions N          pairs (default the scenario's sweep.repetitions)
  --seed S                 the order's seed (default 1)
  --out DIR                the A/B directory (default results/ab/NAME-TIMESTAMP)
  --from DIR               analyse an A/B directory again, without running
  --threshold METRIC=PCT   a primary metric's threshold (METRIC all: every one)
  --alpha A                significance level and false discovery rate (0.05)
  --format text|markdown|json   the report's format (default text)

Exit status: 0 PASS, 1 REGRESSION, 3 INCONCLUSIVE, 2 bad input or a side's
run failed (its log is in DIR/SIDE/reps/NN.log).

Examples:
  sudo svclab ab scenarios/ci-ab.yaml --base-svclab /tmp/main/svclab
  sudo svclab ab kube-proxy-sync --base-kube-proxy-version 1.35 --new-kube-proxy-version 1.37
  sudo svclab ab ci-ab --new-plant-rules 30 --format markdown
  svclab ab --from results/ab/ci-ab-20261202-020000 --format json
`

// abSide collects one side's flags.
type abSide struct {
	binary, version, engine, tools string
	plantRules                     int
	args                           []string
}

func (s *abSide) register(fs *flag.FlagSet, name string) {
	fs.StringVar(&s.binary, name+"-svclab", "", "")
	fs.StringVar(&s.version, name+"-kube-proxy-version", "", "")
	fs.StringVar(&s.engine, name+"-engine", "", "")
	fs.StringVar(&s.tools, name+"-tools", "", "")
	fs.IntVar(&s.plantRules, name+"-plant-rules", 0, "")
	fs.Func(name+"-arg", "", func(v string) error { s.args = append(s.args, v); return nil })
}

// side is how abrun runs it: the binary (this one by default), svclab
// run's options, and PATH with the tools directory first.
func (s abSide) side(self string) (ab.Side, error) {
	out := ab.Side{Binary: s.binary, Args: s.args}
	if out.Binary == "" {
		out.Binary = self
	}
	for _, o := range []struct{ flag, value string }{{"--kube-proxy-version", s.version}, {"--engine", s.engine}} {
		if o.value != "" {
			out.Args = append(out.Args, o.flag, o.value)
		}
	}
	if s.plantRules != 0 {
		out.Args = append(out.Args, "--plant-rules", strconv.Itoa(s.plantRules))
	}
	if s.tools != "" {
		dir, err := filepath.Abs(s.tools)
		if err != nil {
			return out, err
		}
		out.Env = []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
	}
	return out, nil
}

type abFlags struct {
	base, new   abSide
	repetitions int
	seed        uint64
	out, from   string
	format      *formatFlag
	alpha       float64
	thresholds  []string
}

func runAB(args []string, stdout, stderr io.Writer) error {
	var f abFlags
	fs := newFlagSet("ab")
	f.base.register(fs, ab.Base)
	f.new.register(fs, ab.New)
	fs.IntVar(&f.repetitions, "repetitions", 0, "")
	fs.Uint64Var(&f.seed, "seed", 1, "")
	fs.StringVar(&f.out, "out", "", "")
	fs.StringVar(&f.from, "from", "", "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	fs.Float64Var(&f.alpha, "alpha", 0.05, "")
	fs.Func("threshold", "", func(v string) error { f.thresholds = append(f.thresholds, v); return nil })
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	format := string(f.format.value)
	if f.alpha <= 0 || f.alpha >= 1 {
		return usagef("--alpha %g: use a level between 0 and 1, e.g. 0.05", f.alpha)
	}
	var sc *scenario.Scenario
	switch {
	case f.from != "" && len(rest) == 0:
		plan, _, _, err := ab.Load(f.from)
		if err != nil {
			return &exitError{code: 2, msg: err.Error()}
		}
		if sc, err = scenario.Load(plan.Scenario); err != nil {
			sc = nil // the scenario moved: analyse with the default primary metrics
		}
	case f.from == "" && len(rest) == 1:
		if sc, err = scenario.Load(rest[0]); err != nil {
			return err
		}
	default:
		return usagef("give one scenario, or --from DIR")
	}
	primary, err := abPrimary(sc, f.thresholds)
	if err != nil {
		return usagef("%v", err)
	}
	dir := f.from
	if dir == "" {
		if dir, err = runABJob(rest[0], sc, f, stderr); err != nil {
			return err
		}
	}
	return abVerdict(dir, format, ab.Options{Primary: primary, Alpha: f.alpha}, stdout)
}

// runABJob runs the A/B job of sc, which arg names, into f.out (default
// results/ab/NAME-TIMESTAMP) and returns the directory.
func runABJob(arg string, sc *scenario.Scenario, f abFlags, stderr io.Writer) (string, error) {
	if sc.Sweep == nil {
		return "", usagef("scenario %s has no sweep: section; svclab ab compares sweep points", sc.Name)
	}
	plan := ab.Plan{Scenario: arg, Repetitions: f.repetitions, Seed: f.seed}
	if _, err := os.Stat(arg); err == nil {
		if plan.Scenario, err = filepath.Abs(arg); err != nil {
			return "", err
		}
	}
	if plan.Repetitions == 0 {
		plan.Repetitions = sc.Sweep.Repetitions
	}
	if plan.Repetitions < 1 {
		return "", usagef("--repetitions %d: give at least 1 (6 for a 95%% interval)", plan.Repetitions)
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if plan.Base, err = f.base.side(self); err != nil {
		return "", err
	}
	if plan.New, err = f.new.side(self); err != nil {
		return "", err
	}
	dir := f.out
	if dir == "" {
		dir = filepath.Join("results", "ab", sc.Name+"-"+time.Now().Format("20060102-150405"))
	}
	ctx, in, stop := interruptContext(stderr)
	defer stop()
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "svclab ab: "+format+"\n", args...) }
	logf("%s → %s", sc.Name, dir)
	if err := abrun.Run(ctx, abrun.Options{Plan: plan, Dir: dir, Log: logf}); err != nil {
		if ctx.Err() != nil { // SIGINT or SIGTERM: the running side removed its lab
			return "", &exitError{code: in.exitCode(), msg: "interrupted: " + err.Error()}
		}
		return "", &exitError{code: 2, msg: err.Error()}
	}
	return dir, nil
}

// abPrimary is the scenario's primary comparisons (the default ones when
// it declares none) with the --threshold settings applied.
func abPrimary(sc *scenario.Scenario, settings []string) ([]ab.Primary, error) {
	primary := ab.DefaultPrimary()
	if sc != nil && len(sc.Gate) > 0 {
		primary = primary[:0]
		for _, g := range sc.Gate {
			primary = append(primary, ab.Primary{Metric: g.Metric, Threshold: g.Threshold, Services: g.Services})
		}
	}
	for _, s := range settings {
		name, value, ok := strings.Cut(s, "=")
		pct, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
		if !ok || err != nil || pct <= 0 {
			return nil, fmt.Errorf("--threshold %q: want METRIC=PCT with PCT above 0, e.g. p50_us=5", s)
		}
		if primary, err = ab.WithThreshold(primary, name, pct); err != nil {
			return nil, err
		}
	}
	return primary, nil
}

// abVerdict analyses the A/B directory, prints the report and picks the
// exit code as svclab gate does.
func abVerdict(dir, format string, opts ab.Options, stdout io.Writer) error {
	plan, base, new, err := ab.Load(dir)
	if err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	res, err := ab.Analyze(base, new, opts)
	if err != nil {
		return &exitError{code: 2, msg: fmt.Sprintf("%s: %v", dir, err)}
	}
	if err := ab.WriteReport(stdout, format, plan, res); err != nil {
		return err
	}
	switch res.Outcome {
	case compare.Regression:
		return &exitError{code: 1}
	case compare.Inconclusive:
		return &exitError{code: exitInconclusive}
	}
	return nil
}
