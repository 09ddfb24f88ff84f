package cost

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// PlanJSON is the JSON form of a plan (svclab plan --json).
type PlanJSON struct {
	Query       Query        `json:"query"`
	Calibration Source       `json:"calibration"`
	Options     Options      `json:"options"`
	Predictions []Prediction `json:"predictions"`
	Warnings    []string     `json:"warnings,omitempty"`
}

// WritePlanJSON writes the query, the calibration and the predictions as JSON.
func WritePlanJSON(w io.Writer, q Query, m *Model, preds []Prediction) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(PlanJSON{Query: q, Calibration: m.Source, Options: m.Options, Predictions: preds, Warnings: m.Warnings})
}

// WritePlanText prints the side-by-side table of a plan, then the warnings.
func WritePlanText(w io.Writer, q Query, m *Model, preds []Prediction) error {
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
	PositionUniform: "uniformly random services",
	PositionLast:    "services placed last in KUBE-SERVICES (the worst case)",
	PositionMiddle:  "services placed in the middle of KUBE-SERVICES",
	PositionFirst:   "services placed first in KUBE-SERVICES",
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
	cell  func(Prediction) string
}

func planRows(q Query) []planRow {
	return []planRow{
		{"lookup", func(p Prediction) string { return strings.ReplaceAll(string(p.Lookup), "-", " ") }},
		{"rules walked per first packet", func(p Prediction) string {
			if p.Lookup == MapLookup {
				return "1 lookup"
			}
			return planNumber(p.Evaluations)
		}},
		{"N / largest calibrated N", func(p Prediction) string { return planFactor(p.Extrapolation, p.Beyond) }},
		{"p50 added by lookup (µs)", func(p Prediction) string { return planEstimate(&p.P50us.Added) }},
		{"p50 connect (µs)", func(p Prediction) string { return planEstimate(&p.P50us.Total) }},
		{"p50 ns per rule", func(p Prediction) string { return planPerRule(&p.P50us) }},
		{"p99 added by lookup (µs)", func(p Prediction) string { return planCost(p.P99us, false) }},
		{"p99 connect (µs)", func(p Prediction) string { return planCost(p.P99us, true) }},
		{"CPU per connection added (µs)", func(p Prediction) string { return planCost(p.CPUusPerConn, false) }},
		{fmt.Sprintf("CPU cores at %s conn/s", planNumber(q.NewConnPerSec)), func(p Prediction) string { return planEstimate(p.CPUCores) }},
		{"full sync (s)", func(p Prediction) string { return planSync(p.SyncFull) }},
		{"incremental sync (s)", func(p Prediction) string { return planSync(p.SyncIncremental) }},
		{"rules", func(p Prediction) string { return fmt.Sprint(p.Ruleset.Rules) }},
		{"chains", func(p Prediction) string { return fmt.Sprint(p.Ruleset.Chains) }},
		{"payload bytes", func(p Prediction) string {
			if !p.Ruleset.BytesExact {
				return fmt.Sprintf("≈%d", p.Ruleset.Bytes)
			}
			return fmt.Sprint(p.Ruleset.Bytes)
		}},
	}
}

func planCost(c *CostPrediction, total bool) string {
	switch {
	case c == nil:
		return "—"
	case total:
		return planEstimate(&c.Total)
	}
	return planEstimate(&c.Added)
}

func planPerRule(c *CostPrediction) string {
	if c.PerEvaluation == nil {
		return "—"
	}
	ns := c.PerEvaluation.Scale(1e3)
	return planEstimate(&ns)
}

func planSync(s *SyncPrediction) string {
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
func planEstimate(e *Estimate) string {
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
func writePlanWarnings(w io.Writer, m *Model, preds []Prediction) {
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
