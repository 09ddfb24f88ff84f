package main

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/cost"
)

func init() {
	register(&command{name: "plan", summary: "predict what N services cost per dataplane (calibrated cost model)", usage: planUsage, run: runPlan})
}

const planUsage = `Usage: svclab plan --services N --endpoints-per-service M [options]

Predicts, side by side for every calibrated dataplane, what a cluster of N
ClusterIP services with M endpoints each costs kube-proxy's dataplane:
  - p50 and p99 first-packet latency added by the service lookup (iptables:
    the KUBE-SERVICES rules walked × the calibrated cost per rule; nftables
    and IPVS: a map lookup, constant in N), and the whole connect time as the
    calibration lab measured it;
  - CPU cores spent on lookups at --new-conn-per-s new connections a second;
  - full and incremental sync time, fitted against the ruleset's rules
    (linear, power law or quadratic: whichever the data supports, named);
  - ruleset size: rules and chains from exact formulas, bytes from rendering.
Every number carries its 95% interval from the calibration. The cost model
is calibrated from a lab sweep (svclab run sweep-quick, or a recorded run);
without --calibration it uses the sweep embedded in svclab. Warnings name
extrapolation beyond the calibrated sizes, poor fits and user-mode-linux
guest numbers. Needs no root.

Options:
  --services N                 services (one TCP port each), 1..1000000
  --endpoints-per-service M    ready endpoints per service, 0..100000
  --dataplane D                only this dataplane (iptables-legacy, iptables-nft, nftables, ipvs)
  --new-conn-per-s R           new connections per second, for CPU cores (default 1000)
  --position P                 where the services that connections go to sit in KUBE-SERVICES:
                               uniform (default: spread over all, (N+1)/2 rules walked on average),
                               last (worst case, N rules), middle ((N+1)/2) or first (1 rule)
  --calibration RUN_DIR        calibrate on this sweep run directory instead of the embedded one
  --max-n N                    calibrate only on points with at most N services (default: all)
  --fit all|upper-half         points of the latency and CPU lines: all (default), or only those
                               with N at least half the largest (for curves that bend)
  --format text|markdown|json  output format (default text; --json is --format json)

Examples:
  svclab plan --services 30000 --endpoints-per-service 3
  svclab plan --services 50000 --endpoints-per-service 2 --dataplane iptables-nft --new-conn-per-s 5000
  svclab plan --services 10000 --endpoints-per-service 2 --calibration results/sweep-full --json
`

type planFlags struct {
	services, endpoints, maxN int
	rate                      float64
	dataplane, position       string
	calibration, fit          string
	format                    *formatFlag
}

func runPlan(args []string, stdout, stderr io.Writer) error {
	var f planFlags
	fs := newFlagSet("plan")
	fs.IntVar(&f.services, "services", -1, "")
	fs.IntVar(&f.endpoints, "endpoints-per-service", -1, "")
	fs.StringVar(&f.dataplane, "dataplane", "", "")
	fs.Float64Var(&f.rate, "new-conn-per-s", 1000, "")
	fs.StringVar(&f.position, "position", cost.PositionUniform, "")
	fs.StringVar(&f.calibration, "calibration", "", "")
	fs.IntVar(&f.maxN, "max-n", 0, "")
	fs.StringVar(&f.fit, "fit", string(cost.FitAll), "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	q, err := f.query()
	if err != nil {
		return err
	}
	m, err := f.model()
	if err != nil {
		return err
	}
	preds, err := m.Predict(q)
	if err != nil {
		return usagef("%v", err)
	}
	if f.format.value == formatJSON {
		return cost.WritePlanJSON(stdout, q, m, preds)
	}
	return printResult(stdout, f.format.value, fmt.Sprintf("svclab plan: %d services", q.Services), nil,
		func(w io.Writer) error { return cost.WritePlanText(w, q, m, preds) })
}

// query checks the flags that describe the cluster.
func (f planFlags) query() (cost.Query, error) {
	switch {
	case f.services < 0:
		return cost.Query{}, usagef("give --services N")
	case f.endpoints < 0:
		return cost.Query{}, usagef("give --endpoints-per-service M (≥ 0)")
	}
	if f.dataplane != "" {
		if _, err := cost.LookupOf(f.dataplane); err != nil {
			return cost.Query{}, usagef("--dataplane: %v", err)
		}
	}
	q := cost.Query{Services: f.services, EndpointsPerService: f.endpoints, NewConnPerSec: f.rate, Dataplane: f.dataplane, Position: f.position}
	if err := q.Validate(); err != nil {
		return q, usagef("%v", err)
	}
	return q, nil
}

// model calibrates the cost model as the flags ask.
func (f planFlags) model() (*cost.Model, error) {
	opts := cost.Options{MaxN: f.maxN, Range: cost.FitRange(f.fit)}
	calibrate := cost.CalibrateDefault
	if f.calibration != "" {
		calibrate = func(o cost.Options) (*cost.Model, error) { return cost.Calibrate(f.calibration, o) }
	}
	m, err := calibrate(opts)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return m, nil
}
