package main

import (
	"io"
	"math"
	"time"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "plan", summary: "predict what a cluster costs per dataplane on this node (calibrated cost model)", usage: planUsage, run: runPlan})
}

const planUsage = `Usage: svclab plan --services N --endpoints-per-service M [options]
       svclab plan --objects FILE [--scale K] [options]
       svclab plan calibrate [options]     (calibrate on this node: svclab plan calibrate --help)
       svclab plan check RUN_DIR... --max-n N (the holdout check: svclab plan check --help)

Predicts, side by side for every calibrated dataplane, what a cluster costs
kube-proxy's dataplane: N ClusterIP services with M endpoints each, or a
real cluster's own mix of Services (--objects: kubectl get
services,endpointslices,nodes -A -o yaml, rendered at --scale times its size):
  - p50 and p99 first-packet latency (iptables: the KUBE-SERVICES rules
    walked × the calibrated cost per rule, for --objects the rules a first
    packet walks traced through the cluster's rendered rules, its filter
    table's too, as TCP connections to ClusterIPs reaching an endpoint;
    each addrtype match among them, kube-proxy's REJECT of a NodePort
    without endpoints, adds the calibration's addrtype probe's cost of one
    beyond a plain rule, "of which addrtype matches"; a ClientIP-affinity
    Service's first packet walks xt_recent's list of lists by name once per
    endpoint, priced at the recent probe's cost of a step, the uniform p99
    at the slowest 1% of Services', "of which xt_recent list steps";
    where the calibration's walk bends so that its line fits poorly, a walk
    within the calibrated sizes is read between the medians that bracket
    it, and past them it grows from the largest median as the walk probes
    do (without probes, along the line);
    nftables and IPVS: a map lookup, constant in N), for connections spread
    over the cluster's services (uniform, the default) or to one position;
  - CPU per new connection and CPU cores at --new-conn-per-s;
  - full and incremental sync time against the ruleset's rules, in the form
    (linear, power law with fixed cost, quadratic) that best predicted the
    largest calibrated size from the smaller ones (iptables-legacy's full
    sync, quadratic in chains through libiptc's chain index, read at the
    rules of a calibration payload of as many chains, the rules beyond
    priced each at the smallest calibrated sizes' cost of a rule: "by
    chains"; its incremental sync, from a calibration that timed the
    restore's user CPU, read by the table's chains likewise, a table rule
    beyond at the kernel's cost of a table entry, and the partial
    payload's rules beyond the calibration's at those chains at their user
    CPU each: "by chains and partial payload"; from an older calibration,
    the embedded default among them, read at the table's rules, with a
    warning when the partial payload is far from its fillers');
    iptables-nft's full and incremental syncs add their restore's
    chain-list walk (about 8·N² and N²/4 strcmp, priced at the
    calibration's cost of a step at that list length, on the list as each
    payload lays it out: "of which ... chain-list walk", ±35%), which no
    form fitted below it extrapolates;
    nftables' full sync adds the kernel's walks per set (a numgen map per
    Service port with 2+ endpoints, an affinity set per ClientIP-affinity
    endpoint: naming and finding a set walk the table's sets, binding an
    anonymous one the whole transaction, so their square), priced at the
    calibration's step at those lengths ("of which ... anonymous-set
    walks"; the set-list step, timed in short transactions, is priced as
    much dearer after the load's long binding walks as the binding step
    grows there, the interval's lower end at its timed price), and its
    incremental sync the table's sets times what every transaction pays
    for each (nft's cache of them); a calibration without
    them warns from 1,000 sets in a table;
    iptables' syncs add xt_recent's walks of its lists for every affinity
    rule loaded (and, iptables-legacy's incremental sync replacing the whole
    table, unloaded), priced at the recent probe's step ("of which
    xt_recent list walks"); a calibration without the probe warns from
    1,000 xt_recent tables;
  - network programming latency p50/p99 at --churn changes a second (endpoint
    changes, or Service creations with --churn-kind services):
    kube-proxy's sync loop simulated as v1.34-v1.37 run it (--min-sync-period
    from the end of one sync to the start of the next, a sync carrying every
    change queued meanwhile, a full sync an hour), with the incremental and
    full sync times and what each further change adds to a sync (from a
    calibrated batch of the same kind, sweep.incrementalBatchKind; a loop that
    cannot keep up is flagged);
  - kernel memory, and the ruleset's rules, chains, elements and bytes.
Every number carries its 95% interval and its extrapolation factor (the
size over the largest calibrated size). --budget asks the inverse: the
largest size within a limit.

The calibration: --calibration DIR (a svclab plan calibrate directory or any
sweep run), else the newest calibration under results/calibration, else the
sweep embedded in svclab (recorded on svclab's reference machine type, a
2-vCPU AMD EPYC guest). The output names the calibration. A calibration
from another CPU model is refused unless --allow-other-machine; then, and
for the embedded default on another CPU, the output says it extrapolates
across machines. Needs no root.

Options:
  --services N                 services (one TCP port each), 1..1000000
  --endpoints-per-service M    ready endpoints per service, 0..100000
  --objects FILE               a cluster's objects (YAML or JSON List; - for stdin)
  --scale K                    the cluster at K times its size (default 1)
  --dataplane D                only this dataplane (iptables-legacy, iptables-nft, nftables, ipvs)
  --new-conn-per-s R           new connections per second, for CPU cores (default 1000)
  --churn R                    changes per second, for programming latency (default 1)
  --churn-kind K               what they are: endpoints (endpoint changes, default) or services
                               (Service creations; needs a calibration that batched them)
  --min-sync-period D          kube-proxy's --min-sync-period (default 1s)
  --position P                 where the services that connections go to sit in KUBE-SERVICES:
                               uniform (default: spread over all), last (worst case),
                               middle or first
  --budget FIGURE=LIMIT        the largest size within a limit (repeatable): p50=, p99= (µs
                               or a duration: 500us), sync= (full), incremental=, npl99= (10s)
  --calibration DIR            calibrate on this directory instead
  --max-n N                    calibrate only on points with at most N services (a holdout)
  --fit all|upper-half         points of the latency and CPU lines (default all)
  --allow-other-machine        use a calibration measured on another CPU model (extrapolating)
  --format text|markdown|json  output format (default text; --json is --format json)

Examples:
  sudo svclab plan calibrate && svclab plan --objects cluster.yaml --scale 3
  svclab plan --services 30000 --endpoints-per-service 3
  svclab plan --objects cluster.yaml --scale 20 --churn 50 --format markdown
  svclab plan --objects cluster.yaml --budget p99=500us --budget sync=10s
  svclab plan --calibration DIR --services 10000 --churn 100 --churn-kind services
  svclab plan --services 50000 --endpoints-per-service 1 --calibration results/plan-holdout/native --max-n 5000 --position last
`

type planFlags struct {
	services, endpoints, maxN int
	rate, churn, scale        float64
	minSync                   time.Duration
	dataplane, position       string
	calibration, fit, objects string
	churnKind                 string
	format                    *formatFlag
	budgets                   []cost.Budget
	allowOther                bool
}

func runPlan(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "calibrate" {
		return runPlanCalibrate(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "check" {
		return runPlanCheck(args[1:], stdout, stderr)
	}
	f, err := parsePlanFlags(args)
	if err != nil {
		return err
	}
	q, err := f.query(stderr)
	if err != nil {
		return err
	}
	m, err := planModel(f.calibration, cost.Options{MaxN: f.maxN, Range: cost.FitRange(f.fit)}, f.allowOther)
	if err != nil {
		return err
	}
	if len(f.budgets) > 0 {
		return writeBudgets(stdout, string(f.format.value), q, m, f.budgets)
	}
	preds, err := m.Predict(q)
	if err != nil {
		return usagef("%v", err)
	}
	switch f.format.value {
	case formatJSON:
		return cost.WritePlanJSON(stdout, q, m, preds)
	case formatMarkdown:
		return cost.WritePlanMarkdown(stdout, q, m, preds)
	}
	return cost.WritePlanText(stdout, q, m, preds)
}

func parsePlanFlags(args []string) (planFlags, error) {
	var f planFlags
	fs := newFlagSet("plan")
	fs.IntVar(&f.services, "services", -1, "")
	fs.IntVar(&f.endpoints, "endpoints-per-service", -1, "")
	fs.StringVar(&f.objects, "objects", "", "")
	fs.Float64Var(&f.scale, "scale", 1, "")
	fs.StringVar(&f.dataplane, "dataplane", "", "")
	fs.Float64Var(&f.rate, "new-conn-per-s", 1000, "")
	fs.Float64Var(&f.churn, "churn", 1, "")
	fs.StringVar(&f.churnKind, "churn-kind", scenario.BatchEndpoints, "")
	fs.DurationVar(&f.minSync, "min-sync-period", time.Duration(cost.DefaultMinSyncPeriodS*float64(time.Second)), "")
	fs.StringVar(&f.position, "position", cost.PositionUniform, "")
	fs.Func("budget", "", func(s string) error {
		b, err := cost.ParseBudget(s)
		f.budgets = append(f.budgets, b)
		return err
	})
	fs.StringVar(&f.calibration, "calibration", "", "")
	fs.IntVar(&f.maxN, "max-n", 0, "")
	fs.StringVar(&f.fit, "fit", string(cost.FitAll), "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	fs.BoolVar(&f.allowOther, "allow-other-machine", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return f, err
	}
	if len(rest) > 0 {
		return f, usagef("unexpected argument %q", rest[0])
	}
	return f, nil
}

// query checks the flags that describe the cluster.
func (f planFlags) query(stderr io.Writer) (cost.Query, error) {
	q := cost.Query{Services: f.services, EndpointsPerService: f.endpoints, NewConnPerSec: f.rate, Dataplane: f.dataplane,
		Position: f.position, ChurnPerSec: f.churn, MinSyncPeriodS: f.minSync.Seconds(), ChurnKind: f.churnKind}
	switch {
	case f.objects != "" && (f.services >= 0 || f.endpoints >= 0):
		return q, usagef("give either --objects or --services and --endpoints-per-service, not both")
	case f.objects != "":
		if err := checkScale(f.scale); err != nil {
			return q, err
		}
		c, err := planComposition(f.objects, f.scale, stderr)
		if err != nil {
			return q, err
		}
		q.Composition, q.EndpointsPerService = c, int(math.Round(float64(c.Endpoints)/float64(max(c.Services, 1))))
	case f.services < 0:
		return q, usagef("give --services N (or --objects FILE)")
	case f.endpoints < 0:
		return q, usagef("give --endpoints-per-service M (≥ 0)")
	}
	if f.dataplane != "" {
		if _, err := cost.LookupOf(f.dataplane); err != nil {
			return q, usagef("--dataplane: %v", err)
		}
	}
	if err := q.Validate(); err != nil {
		return q, usagef("%v", err)
	}
	return q, nil
}
