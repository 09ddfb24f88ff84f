package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/compare"
)

func init() {
	register(&command{name: "gate", summary: "fail (exit 1) when a run regresses significantly against a baseline", usage: gateUsage, run: runGate})
}

const gateUsage = `Usage: svclab gate BASE NEW [--threshold METRIC=PCT ...] [options]

Compares NEW with the baseline BASE (run directories or results.jsonl files)
as svclab compare does, and gives one of three verdicts:

  REGRESSION    a metric is worse by more than its threshold, significantly:
                Mann-Whitney U p ≤ alpha and, over all gated comparisons,
                a Benjamini-Hochberg adjusted q ≤ alpha (exit 1)
  PASS          every gated change is KNOWN to be within its threshold: the
                95% interval of the change (Hodges-Lehmann estimate, Moses'
                interval) excludes a change beyond the threshold (exit 0)
  INCONCLUSIVE  no regression was shown, but some interval still allows a
                change beyond its threshold; each such line says how many
                repetitions per point would decide (exit 3)

so a noisy or small sample is never called a PASS. A "power:" line says
how large a change these samples could tell from noise.

What is gated (--scope): by default one pooled comparison per metric and
dataplane: every point's values, both sides, are divided by that point's
base median and all points are compared as one sample, so a change that
shows everywhere is seen with every repetition of every point, and the
correction runs over a handful of comparisons. --scope points gates each
point separately (a change at one point only; less power). The per-point
table is printed with -v. Lines look like

  REGRESSION p50_us iptables-nft (4 points): +31.2% (p=0.000, q=0.000, threshold 10%)
  INCONCLUSIVE p99_us nftables (4 points): +4.0% [-9.5%, +18.7%] may be beyond the 10% threshold; about 19 repetitions per point would decide (have 6)

Warnings go to stderr. Needs no root.

A baseline means something only for the same scenario on the same kind of
machine: the gate refuses runs whose meta records name different scenarios
(or scenario file hashes) or CPU models. Record a baseline on your own CI
runner with ` + "`make baseline`" + ` (results/README.md); this machine's
speed drifts, so a baseline recorded on another day measures the day too.

Default thresholds, in percent of the base median:
  p50_us, p90_us, p99_us     10   (latency; higher is worse)
  cpu_us_per_conn            10   (CPU per new connection; higher is worse)
  conn_per_s                 10   (connection rate; a drop is worse)
  sync_full_s                20   (full sync time; higher is worse)
  sync_incremental_s         20   (incremental sync time; higher is worse)
Fairness metrics (chi2_p, jain) are gated only when given a threshold.

The Mann-Whitney U test needs at least 4 values per side to reach p ≤ 0.05:
when no gated comparison can ever be significant, the gate refuses to
decide (exit 2). Sync times are measured once per point (one sample per
point) unless the scenario sets sweep.syncEachRepetition.

Options:
  --threshold METRIC=PCT  set a threshold; repeat or separate with commas.
                          METRIC is a metric or a group (latency, cpu, sync);
                          PCT is a percentage, or off to stop gating it
  --scope pooled|points   gate pooled comparisons (default) or every point
  --alpha A               significance level and false discovery rate (0.05)
  --correction bh|none    multiple-comparison correction (default bh)
  --allow-env-mismatch    gate even when the runs' scenarios (name or hash)
                          or CPU models differ (refused by default, exit 2)
  --base-dataplane D      compare only this dataplane of BASE ...
  --new-dataplane D       ... with this one of NEW (see svclab help compare)
  -v                      print the whole comparison table first
  --format text|markdown|json
                          output (default text; markdown for
                          $GITHUB_STEP_SUMMARY; json, or --json: one object
                          with the verdict, each named comparison and the
                          power line; the exit status is the same)

Exit status:
  0  PASS: every gated change is known to be within its threshold
  1  REGRESSION (the lines above name them), or a gated metric or point BASE
     measured and NEW did not (MISSING lines): a comparison that cannot be
     made is no pass
  3  INCONCLUSIVE: more repetitions needed (the lines above say how many)
  2  unusable input: a missing run, another schema version, runs of different
     scenarios or CPU models or without a meta record (without
     --allow-env-mismatch), an impossible value (a negative latency, a
     p-value above 1) or a record given twice (file:line), no common point,
     or samples too few for any change to be significant

Examples:
  svclab gate results/baseline/ci-smoke new
  svclab gate results/baseline/ci-smoke new --threshold latency=15 --threshold sync=off
  svclab gate base new --scope points --threshold p99_us=25,conn_per_s=5 -v
  svclab gate base new --format markdown >> "$GITHUB_STEP_SUMMARY"
  svclab gate base new --json | jq -r .verdict
`

func runGate(args []string, stdout, stderr io.Writer) error {
	var f compareFlags
	fs := newFlagSet("gate")
	f.register(fs)
	thresholds := compare.NewThresholds()
	fs.Func("threshold", "", func(s string) error {
		for _, setting := range strings.Split(s, ",") {
			if err := thresholds.Set(strings.TrimSpace(setting)); err != nil {
				return err
			}
		}
		return nil
	})
	verbose := fs.Bool("v", false, "")
	correction := fs.String("correction", string(compare.CorrectionBH), "")
	scope := fs.String("scope", string(compare.ScopePooled), "")
	allowMismatch := fs.Bool("allow-env-mismatch", false, "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
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
	corr, err := compare.ParseCorrection(*correction)
	if err != nil {
		return usagef("--%v", err)
	}
	sc, err := compare.ParseScope(*scope)
	if err != nil {
		return usagef("--%v", err)
	}
	res, err := loadAndCompare(rest[0], rest[1], f.opts)
	if err != nil {
		return err
	}
	if err := compare.Comparable(res.Base, res.New); err != nil && !*allowMismatch {
		return &exitError{code: 2, msg: err.Error()}
	}
	if *verbose && format.value != formatJSON {
		if err := compareWriters[format.value](stdout, res); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
	} else {
		for _, w := range compare.AllWarnings(res) {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	return gateVerdict(compare.Gate(res, compare.GateOptions{Thresholds: thresholds, Correction: corr, Scope: sc}), res, format.value, stdout)
}

// gateVerdict prints the failures and the verdict and picks the exit code.
func gateVerdict(v compare.Verdict, res *compare.Result, format outputFormat, stdout io.Writer) error {
	if err := v.CanFail(); err != nil {
		return &exitError{code: 2, msg: err.Error()}
	}
	out := gateOutputOf(v, res)
	switch format {
	case formatJSON:
		if err := writeJSON(stdout, out); err != nil {
			return err
		}
	case formatMarkdown:
		out.writeMarkdown(stdout)
	default:
		out.writeText(stdout)
	}
	switch v.Outcome() {
	case compare.Regression:
		return &exitError{code: 1}
	case compare.Inconclusive:
		return &exitError{code: exitInconclusive}
	}
	return nil
}

// exitInconclusive is gate's exit status when it could neither show a
// regression nor rule one out.
const exitInconclusive = 3
