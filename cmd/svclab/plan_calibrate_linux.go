package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/atomicfile"
	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/scenario"
)

const planCalibrateUsage = `Usage: svclab plan calibrate [options]

Calibrates svclab plan on this node: an interleaved sweep of kube-proxy's
rules at 1, 1,000, 2,500 and 5,000 services for iptables-legacy,
iptables-nft and nftables (first-packet latency at the last and at a
uniformly random service, CPU per connection, full and incremental syncs,
a partial sync carrying 100 endpoint changes, kernel memory), with walk
probes (a rule walk's growth to 80,000 services), an addrtype probe (the
2,500-service walk probe with 2,500 addrtype rules: what a routing lookup
adds to a first packet), a recent probe (that walk probe with 8,000
xt_recent lists ahead of one that 4 rules check: a step of the list walk
ClientIP affinity costs first packets and syncs), sync probes
(iptables-legacy's and nftables' full and incremental syncs timed alone
at 10,000 and 20,000 services: iptables-legacy's grows faster than a
line), lookup probes (nftables' lookup of a random service among 40,000
and 80,000, loaded once; its sync probes probe it too), and the time of one
step of iptables-nft-restore's chain-list walk at 1,000 to 256,000 chains,
laid out as a full and as a partial sync's payload lays it out (about 20 s
and 460 MB, at the start and again at the end: iptables-nft's syncs are
priced with the two pooled), of a step of the kernel's chain dump to nft
(about a minute: nftables' incremental syncs) and of its two walks per
anonymous set (about 50 s: nftables' full syncs of Services with two or
more endpoints, a numgen map each), then
stores it with this machine's identity (CPU model and
caches, kernel, tool versions) in a directory of its own. svclab plan uses
the newest calibration under results/calibration and refuses one from
another CPU model unless told (--allow-other-machine). Needs root. Progress
goes to stderr.

Options:
  --duration D    how long the whole calibration may take, loading the rules
                  included (default 3m, so that calibrate then plan takes
                  under 5 minutes): repetitions run until the next would end
                  after it, at least 2; longer runs more, which tightens the
                  intervals
  --reps N        run exactly N repetitions of every point (no time budget; at least 3)
  --dataplane L   dataplanes to calibrate (default iptables-legacy,iptables-nft,nftables)
  --services L    service counts, e.g. 1,1000,2500,5000 (the default)
  --walk-probe L  sizes of the rule-walk probes: every KUBE-SERVICES rule of
                  that many services with the targets' chains alone, loaded
                  in seconds, from which plan reads how a rule walk grows
                  past the calibrated sizes (default 2500,5000,10000,20000,40000,80000;
                  "none" for none; go beyond your cluster's size)
  --sync-probe L  sizes at which the full ruleset is loaded and timed alone
                  (no traffic), then one change's incremental sync, from which
                  plan reads how syncs and kernel memory grow past the
                  calibrated sizes (default 10000,20000; "none" for
                  none; for iptables-legacy and IPVS: iptables-nft's restore
                  takes 16 s at 10,000, nftables' sync is linear)
  --lookup-probe L
                  sizes at which each map-lookup dataplane (nftables, ipvs)
                  loads the full ruleset once and measures connections to
                  uniformly random services in every repetition, from which
                  plan reads how a lookup grows past the calibrated sizes
                  (default 10000,20000,40000,80000; "none" for none; about
                  17 s of nftables loads once)
  --addrtype-probe L
                  walk-probe sizes at which the walk probe is also measured
                  with as many addrtype rules (kube-proxy's REJECT of a
                  NodePort without endpoints, a routing lookup each), from
                  which plan prices the addrtype rules a cluster's first
                  packets walk (default the smallest walk probe, 2500;
                  "none" for none)
  --recent-probe N
                  xt_recent lists the recent probe creates ahead of the one
                  its rules check, as kube-proxy's ClientIP-affinity rules
                  do, on the smallest walk probe: plan prices the steps a
                  cluster's first packets take through that list of lists
                  (default 8000, about 10,000 Services' affinity endpoints;
                  0 for none; seconds to load)
  --walk-probe-reload
                  reload the walk probes in every repetition, not once: one
                  load's long rule walk moves by ±25-35% on a noisy VM, and
                  a median over reloads is what a 10x plan needs (the 10x
                  holdout took 9 to hold every walk within 10%; about 30 s
                  more per repetition here, so give --duration or --reps)
  --batch-kind K  what the timed batch of 100 changes is: endpoints (endpoint
                  changes, the default) or services (Service creations), for
                  plan --churn-kind K
  --out DIR       the calibration directory (default results/calibration/UTC-TIMESTAMP)
  --progress auto|plain|none  as svclab run's (plain: lines for CI logs)

Examples:
  sudo svclab plan calibrate
  sudo svclab plan calibrate --duration 10m
  sudo svclab plan calibrate --duration 6m --sync-probe 10000,20000,40000
  sudo svclab plan calibrate --reps 9 --walk-probe-reload --sync-probe 10000,20000,40000   # for a 10x plan
  sudo svclab plan calibrate --batch-kind services   # then: svclab plan ... --churn-kind services
  svclab plan --objects cluster.yaml --scale 3
`

func runPlanCalibrate(args []string, stdout, stderr io.Writer) error {
	var (
		out, dataplanes, services, probes, syncProbes string
		lookupProbes, addrTypeProbes                  string
		batchKind                                     string
		duration                                      time.Duration
		reps, recentProbe                             int
		reloadWalk                                    bool
	)
	fs := newFlagSet("plan calibrate")
	fs.DurationVar(&duration, "duration", cost.DefaultCalibrationDuration, "")
	fs.IntVar(&reps, "reps", 0, "")
	fs.StringVar(&dataplanes, "dataplane", "", "")
	fs.StringVar(&services, "services", "", "")
	fs.StringVar(&probes, "walk-probe", "", "")
	fs.StringVar(&syncProbes, "sync-probe", "", "")
	fs.StringVar(&lookupProbes, "lookup-probe", "", "")
	fs.StringVar(&addrTypeProbes, "addrtype-probe", "", "")
	fs.IntVar(&recentProbe, "recent-probe", cost.DefaultCalibrationRecentProbe, "")
	fs.BoolVar(&reloadWalk, "walk-probe-reload", false, "")
	fs.StringVar(&batchKind, "batch-kind", scenario.BatchEndpoints, "")
	fs.StringVar(&out, "out", "", "")
	progress := addProgressFlag(fs)
	rest, err := parseFlags(fs, args)
	if errors.Is(err, errHelp) {
		_, err = io.WriteString(stdout, planCalibrateUsage)
		return err
	}
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	counts, err := parseIntList(services)
	if err != nil {
		return usagef("--services %q: %v", services, err)
	}
	walkProbe, err := parseProbeSizes(probes)
	if err != nil {
		return usagef("--walk-probe %q: %v", probes, err)
	}
	syncProbe, err := parseProbeSizes(syncProbes)
	if err != nil {
		return usagef("--sync-probe %q: %v", syncProbes, err)
	}
	lookupProbe, err := parseProbeSizes(lookupProbes)
	if err != nil {
		return usagef("--lookup-probe %q: %v", lookupProbes, err)
	}
	addrTypeProbe, err := parseProbeSizes(addrTypeProbes)
	if err != nil {
		return usagef("--addrtype-probe %q: %v", addrTypeProbes, err)
	}
	sweep, err := cost.NewCalibrationSweep(duration, reps, splitList(dataplanes), counts,
		cost.Probes{Walk: walkProbe, Sync: syncProbe, Lookup: lookupProbe, AddrType: addrTypeProbe, Recent: recentProbe, ReloadWalk: reloadWalk})
	if err != nil {
		return usagef("%v", err)
	}
	switch batchKind {
	case scenario.BatchEndpoints:
	case scenario.BatchServices:
		sweep.BatchKind = batchKind
	default:
		return usagef("--batch-kind %q: use %s or %s", batchKind, scenario.BatchEndpoints, scenario.BatchServices)
	}
	if out == "" {
		out = filepath.Join(calibrationRoot, time.Now().UTC().Format("20060102T150405Z"))
	}
	return calibrateInto(out, sweep, *progress, stdout, stderr)
}

// calibrateInto runs the sweep into dir, then stores the machine's identity.
func calibrateInto(dir string, sweep cost.CalibrationSweep, progress progressMode, stdout, stderr io.Writer) error {
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("calibration directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, "calibration-scenario.yaml")
	if err := atomicfile.Write(path, sweep.Scenario(), 0o644); err != nil {
		return fmt.Errorf("calibration scenario %s: %w", path, err)
	}
	sc, err := scenario.Load(path)
	if err != nil {
		return fmt.Errorf("calibration scenario %s: %w", path, err)
	}
	fmt.Fprintf(stderr, "svclab plan calibrate: %s of %v services × %s → %s\n",
		calibrationReps(sweep), sweep.Services, strings.Join(sweep.Dataplanes, ", "), dir)
	started := time.Now()
	if err := runAndPrint(sc, calibrationRunFlags(dir, sweep, progress, started), io.Discard, stderr); err != nil {
		return err
	}
	machine := thisMachine()
	b, err := json.MarshalIndent(machine, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, cost.MachineFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("calibration %s: %w", dir, err)
	}
	fmt.Fprintf(stdout, "calibration stored in %s (%s, measured in %s)\n", dir, machine, time.Since(started).Round(time.Second))
	fmt.Fprintf(stdout, "svclab plan uses the newest calibration under %s; or pass --calibration %s\n", calibrationRoot, dir)
	return nil
}

// calibrationRunFlags are svclab run's flags for the calibration sweep:
// every field runAndPrint reads is set, and the deadline is the budget's.
func calibrationRunFlags(dir string, sweep cost.CalibrationSweep, progress progressMode, started time.Time) runFlags {
	f := runFlags{out: dir, kernel: "host", format: &formatFlag{value: formatText}, progress: &progress}
	if sweep.Budget > 0 {
		f.deadline = started.Add(sweep.Budget)
	}
	return f
}

// calibrationReps says how many repetitions the sweep runs.
func calibrationReps(s cost.CalibrationSweep) string {
	if s.Budget > 0 {
		return fmt.Sprintf("up to %d repetitions (at least 2) within %s", s.Repetitions, s.Budget)
	}
	return fmt.Sprintf("%d repetitions", s.Repetitions)
}

// parseIntList reads "1,1000,5000" ("" is nil).
func parseIntList(s string) ([]int, error) {
	var out []int
	for _, part := range splitList(s) {
		var n int
		if _, err := fmt.Sscanf(part, "%d", &n); err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive count", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseProbeSizes reads --walk-probe, --sync-probe, --lookup-probe and --addrtype-probe: "" is the default
// sizes (nil), "none" none (an empty list), else a list of sizes.
func parseProbeSizes(s string) ([]int, error) {
	switch s {
	case "":
		return nil, nil
	case "none":
		return []int{}, nil
	}
	return parseIntList(s)
}
