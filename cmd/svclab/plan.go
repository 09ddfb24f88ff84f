package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

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
  --json                       print the predictions as JSON

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
	json                      bool
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
	fs.BoolVar(&f.json, "json", false, "")
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
	if f.json {
		return writePlanJSON(stdout, q, m, preds)
	}
	return writePlanText(stdout, q, m, preds)
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

// planJSON is plan's JSON output.
type planJSON struct {
	Query       cost.Query        `json:"query"`
	Calibration cost.Source       `json:"calibration"`
	Options     cost.Options      `json:"options"`
	Predictions []cost.Prediction `json:"predictions"`
	Warnings    []string          `json:"warnings,omitempty"`
}

func writePlanJSON(w io.Writer, q cost.Query, m *cost.Model, preds []cost.Prediction) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(planJSON{Query: q, Calibration: m.Source, Options: m.Options, Predictions: preds, Warnings: m.Warnings})
}

// writePlanText prints the side-by-side table, then the warnings.
func writePlanText(w io.Writer, q cost.Query, m *cost.Model, preds []cost.Prediction) error {
	fmt.Fprintf(w, "svclab plan: %s, %s each; %s new connections/s to %s\n", planCount(q.Services, "service"),
		planCount(q.EndpointsPerService, "endpoint"), planNumber(q.NewConnPerSec), planPositionText[q.Position])
	fmt.Fprintf(w, "calibration: %s\n", m.Source)
	fmt.Fprintf(w, "95%% intervals in brackets; \"—\" = not calibrated\n\n")
	tw := tabwriter.NewWriter(w, 2, 4, 3, ' ', 0)
	header := []string{""}
	for _, p := range preds {
		header = append(header, p.Dataplane)
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, row := range planRows(q) {
		cells := []string{row.label}
		for _, p := range preds {
			cells = append(cells, row.cell(p))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writePlanWarnings(w, m, preds)
	return nil
}

var planPositionText = map[string]string{
	cost.PositionUniform: "uniformly random services",
	cost.PositionLast:    "services placed last in KUBE-SERVICES (the worst case)",
	cost.PositionMiddle:  "services placed in the middle of KUBE-SERVICES",
	cost.PositionFirst:   "services placed first in KUBE-SERVICES",
}

func planCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// planRow is one line of the table: a label and how to fill its cell.
type planRow struct {
	label string
	cell  func(cost.Prediction) string
}

func planRows(q cost.Query) []planRow {
	return []planRow{
		{"lookup", func(p cost.Prediction) string { return strings.ReplaceAll(string(p.Lookup), "-", " ") }},
		{"rules walked per first packet", func(p cost.Prediction) string {
			if p.Lookup == cost.MapLookup {
				return "1 lookup"
			}
			return planNumber(p.Evaluations)
		}},
		{"N / largest calibrated N", func(p cost.Prediction) string { return planFactor(p.Extrapolation, p.Beyond) }},
		{"p50 added by lookup (µs)", func(p cost.Prediction) string { return planEstimate(&p.P50us.Added) }},
		{"p50 connect (µs)", func(p cost.Prediction) string { return planEstimate(&p.P50us.Total) }},
		{"p50 ns per rule", func(p cost.Prediction) string { return planPerRule(&p.P50us) }},
		{"p99 added by lookup (µs)", func(p cost.Prediction) string { return planCost(p.P99us, false) }},
		{"p99 connect (µs)", func(p cost.Prediction) string { return planCost(p.P99us, true) }},
		{"CPU per connection added (µs)", func(p cost.Prediction) string { return planCost(p.CPUusPerConn, false) }},
		{fmt.Sprintf("CPU cores at %s conn/s", planNumber(q.NewConnPerSec)), func(p cost.Prediction) string { return planEstimate(p.CPUCores) }},
		{"full sync (s)", func(p cost.Prediction) string { return planSync(p.SyncFull) }},
		{"incremental sync (s)", func(p cost.Prediction) string { return planSync(p.SyncIncremental) }},
		{"rules", func(p cost.Prediction) string { return fmt.Sprint(p.Ruleset.Rules) }},
		{"chains", func(p cost.Prediction) string { return fmt.Sprint(p.Ruleset.Chains) }},
		{"payload bytes", func(p cost.Prediction) string {
			if !p.Ruleset.BytesExact {
				return fmt.Sprintf("≈%d", p.Ruleset.Bytes)
			}
			return fmt.Sprint(p.Ruleset.Bytes)
		}},
	}
}

func planCost(c *cost.CostPrediction, total bool) string {
	switch {
	case c == nil:
		return "—"
	case total:
		return planEstimate(&c.Total)
	}
	return planEstimate(&c.Added)
}

func planPerRule(c *cost.CostPrediction) string {
	if c.PerEvaluation == nil {
		return "—"
	}
	ns := c.PerEvaluation.Scale(1e3)
	return planEstimate(&ns)
}

func planSync(s *cost.SyncPrediction) string {
	if s == nil {
		return "—"
	}
	return fmt.Sprintf("%s %s %s", planEstimate(&s.Seconds), s.Form, planFactor(s.Extrapolation, s.Beyond))
}

// planFactor prints an extrapolation factor, marking one beyond calibration.
func planFactor(f float64, beyond bool) string {
	s := "×" + planNumber(f)
	if beyond {
		s += " beyond"
	}
	return s
}

// planEstimate prints "v [lo, hi]", "v (no interval)" or "—" for nil.
func planEstimate(e *cost.Estimate) string {
	switch {
	case e == nil:
		return "—"
	case e.NoInterval:
		return planNumber(e.Value) + " (no interval)"
	}
	return fmt.Sprintf("%s [%s, %s]", planNumber(e.Value), planNumber(e.Lo), planNumber(e.Hi))
}

// planNumber prints three significant digits, whole numbers in full.
func planNumber(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// writePlanWarnings prints the model's and the predictions' warnings, each
// once.
func writePlanWarnings(w io.Writer, m *cost.Model, preds []cost.Prediction) {
	warnings := slices.Clone(m.Warnings)
	for _, p := range preds {
		for _, s := range p.Warnings {
			if !slices.Contains(warnings, s) {
				warnings = append(warnings, s)
			}
		}
	}
	if len(warnings) == 0 {
		return
	}
	fmt.Fprintln(w, "\nwarnings:")
	for _, s := range warnings {
		fmt.Fprintf(w, "  - %s\n", s)
	}
}
