package migrate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// Costs is the cost beside a migration: what each side costs on this node
// at the cluster's size and at other scales, from svclab plan's calibrated
// model (sim/cost): the ruleset, full sync (cold start), incremental sync,
// first-packet latency p50 and p99 and kernel memory, each with its 95%
// interval. Sizes are the rules each side's configuration writes (svclab's
// renderers at the side's release and flags); the times are the
// calibration's.
type Costs struct {
	Calibration cost.Source `json:"calibration"`
	// AcrossMachines is set when the calibration was measured on another
	// CPU model (cost.Model.Across).
	AcrossMachines *cost.Mismatch `json:"across_machines,omitempty"`
	Sizes          []Cost         `json:"sizes"`
	// Notes say what the figures rest on; Warnings are the model's and
	// the predictions' own, each once.
	Notes    []string `json:"notes,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Cost is both sides' cost at one size of the cluster.
type Cost struct {
	// Scale is the multiple of the cluster's size (1: the cluster
	// itself); Services and Endpoints count its Services and endpoints.
	Scale     float64 `json:"scale"`
	Services  int     `json:"services"`
	Endpoints int     `json:"endpoints"`
	// From and To have one entry per dataplane that runs the side's mode
	// (iptables mode: iptables-legacy and iptables-nft).
	From []DataplaneCost `json:"from"`
	To   []DataplaneCost `json:"to"`
}

// DataplaneCost is one side's cost on one dataplane.
type DataplaneCost struct {
	Dataplane string `json:"dataplane"`
	// Version is the side's kube-proxy release.
	Version string `json:"version"`
	// Ruleset is the side's ruleset at this size (known whether or not
	// the model is calibrated for the dataplane).
	Ruleset cost.Size `json:"ruleset"`
	// Prediction is the model's, nil when it has none for the dataplane;
	// Missing then says why.
	Prediction *cost.Prediction `json:"prediction,omitempty"`
	Missing    string           `json:"missing,omitempty"`
}

// Sized is the compared cluster at one scale: CostsOf's input.
type Sized struct {
	Scale float64
	Model *model.Model
}

// The query's defaults for what the cost section does not show (CPU cores
// and programming latency in the JSON's predictions): svclab plan's
// defaults.
const (
	costNewConnPerSec = 1000
	costChurnPerSec   = 1
)

// CostsOf predicts each side's cost with m at every size (Compare's
// Result.Model is the cluster at scale 1).
func CostsOf(m *cost.Model, from, to Side, sizes []Sized) (*Costs, error) {
	from, to = from.Effective(), to.Effective()
	out := &Costs{Calibration: m.Source, AcrossMachines: m.Across}
	for _, w := range m.Warnings {
		if aboutOtherDataplane(w, from, to) {
			continue
		}
		out.Warnings = append(out.Warnings, w)
	}
	for _, sz := range sizes {
		c := Cost{Scale: sz.Scale, Services: sz.Model.Services.Len()}
		for i := range c.Services {
			c.Endpoints += len(sz.Model.Services.At(i).Endpoints)
		}
		var err error
		if c.From, err = sideCost(m, from, sz, out); err != nil {
			return nil, fmt.Errorf("the cost of --from %s at %g× the cluster: %w", from, sz.Scale, err)
		}
		if c.To, err = sideCost(m, to, sz, out); err != nil {
			return nil, fmt.Errorf("the cost of --to %s at %g× the cluster: %w", to, sz.Scale, err)
		}
		out.Sizes = append(out.Sizes, c)
	}
	out.Notes = costNotes(m, from, to)
	return out, nil
}

// sideCost predicts one side at one size on each dataplane of its mode.
func sideCost(m *cost.Model, side Side, sz Sized, out *Costs) ([]DataplaneCost, error) {
	comp, err := cost.CompositionFor("the cluster", sz.Scale, sz.Model, route.Config{Mode: side.Mode, Config: side.Config})
	if err != nil {
		return nil, err
	}
	q := cost.Query{Composition: &comp, NewConnPerSec: costNewConnPerSec, ChurnPerSec: costChurnPerSec, Position: cost.PositionUniform,
		EndpointsPerService: int(math.Round(float64(comp.Endpoints) / float64(max(comp.Services, 1))))}
	var dcs []DataplaneCost
	for _, d := range ModeDataplanes(side.Mode) {
		dc := DataplaneCost{Dataplane: string(d.Name), Version: string(side.Version.OrLatest()), Ruleset: comp.Modes[string(side.Mode)]}
		if _, ok := m.Dataplane(dc.Dataplane); !ok {
			dc.Missing = fmt.Sprintf("not calibrated: the calibration has no %s points", dc.Dataplane)
			dcs = append(dcs, dc)
			continue
		}
		q.Dataplane = dc.Dataplane
		preds, err := m.Predict(q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dc.Dataplane, err)
		}
		dc.Prediction = &preds[0]
		dc.Ruleset = preds[0].Ruleset
		for _, w := range preds[0].Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
		dcs = append(dcs, dc)
	}
	if len(dcs) == 0 {
		return nil, fmt.Errorf("no dataplane runs kube-proxy's %s mode", side.Mode)
	}
	return dcs, nil
}

// aboutOtherDataplane says whether a model warning is about a dataplane
// that runs neither side (it starts with that dataplane's name): the
// calibration's eBPF or another mode's fits say nothing about this
// migration.
func aboutOtherDataplane(w string, from, to Side) bool {
	first, _, _ := strings.Cut(w, " ")
	if _, known := dataplane.Lookup(first); !known {
		return false
	}
	for _, s := range []Side{from, to} {
		for _, d := range ModeDataplanes(s.Mode) {
			if string(d.Name) == first {
				return false
			}
		}
	}
	return true
}

// ModeDataplanes are the dataplanes the cost model knows that load mode's
// rules (iptables: iptables-legacy and iptables-nft).
func ModeDataplanes(mode dataplane.Mode) []dataplane.Info {
	var out []dataplane.Info
	for _, d := range dataplane.Modelled() {
		if d.Mode == mode {
			out = append(out, d)
		}
	}
	return out
}

// costNotes say what the figures rest on: the calibration's kube-proxy
// release beside each side's.
func costNotes(m *cost.Model, from, to Side) []string {
	notes := []string{"sizes are each side's own rules (svclab's renderers at its release and flags); times and memory are the calibration's fits at those sizes; latency is for connections to uniformly random Services"}
	if v := m.Source.KubeProxyVersion; v != "" {
		for _, s := range []Side{from, to} {
			if got := string(s.Version.OrLatest()); got != v {
				notes = append(notes, fmt.Sprintf("%s: the calibration measured kube-proxy %s's rules, not %s's: its per-rule costs are applied to %s's ruleset", s.Mode, v, got, got))
			}
		}
	}
	return notes
}

// costTitle names one size.
func costTitle(c Cost) string {
	what := fmt.Sprintf("%d Services, %d endpoints", c.Services, c.Endpoints)
	if c.Scale == 1 {
		return "at the cluster's size (" + what + ")"
	}
	return fmt.Sprintf("at %g× the cluster's size (%s, generated in its shape)", c.Scale, what)
}

// costColumn is one column of a size's table: a side's dataplane.
type costColumn struct {
	side string
	DataplaneCost
}

func costColumns(c Cost) []costColumn {
	var cols []costColumn
	for _, d := range c.From {
		cols = append(cols, costColumn{"from", d})
	}
	for _, d := range c.To {
		cols = append(cols, costColumn{"to", d})
	}
	return cols
}

// costRow is one figure of the table: of the ruleset (size), known
// without a calibration, or of the prediction (cell).
type costRow struct {
	label string
	size  func(s cost.Size) string
	cell  func(p *cost.Prediction) string
}

// costRows are the figures the issue asks for beside a migration.
var costRows = []costRow{
	{label: "ruleset rules", size: func(s cost.Size) string { return fmt.Sprint(s.Rules) }},
	{label: "ruleset bytes", size: func(s cost.Size) string {
		if !s.BytesExact {
			return fmt.Sprintf("≈%d", s.Bytes)
		}
		return fmt.Sprint(s.Bytes)
	}},
	{label: "full sync, cold start (s)", cell: func(p *cost.Prediction) string { return cost.SyncText(p.SyncFull) }},
	{label: "incremental sync (s)", cell: func(p *cost.Prediction) string { return cost.SyncText(p.SyncIncremental) }},
	{label: "first packet p50 (µs)", cell: func(p *cost.Prediction) string { return cost.EstimateText(&p.P50us.Total) }},
	{label: "first packet p99 (µs)", cell: func(p *cost.Prediction) string {
		if p.P99us == nil {
			return "—"
		}
		return cost.EstimateText(&p.P99us.Total)
	}},
	{label: "kernel memory (MB)", cell: func(p *cost.Prediction) string { return cost.EstimateText(p.KernelMemMB) }},
}

// costCell is one figure of one column.
func costCell(r costRow, d DataplaneCost) string {
	switch {
	case r.size != nil:
		return r.size(d.Ruleset)
	case d.Prediction == nil:
		return "not calibrated"
	}
	return r.cell(d.Prediction)
}

// costLegend is the line under the section's title.
const costLegend = `95% intervals in brackets; "—": the model has no figure (not measured in the calibration)`

// costText is the cost section of the text report.
func costText(b *strings.Builder, c *Costs) error {
	if c == nil {
		return nil
	}
	fmt.Fprintf(b, "\nCost beside it (svclab plan's model): calibration %s\n  %s\n", c.Calibration, costLegend)
	if c.AcrossMachines != nil {
		fmt.Fprintf(b, "  EXTRAPOLATING ACROSS MACHINES: %s\n", strings.Join(c.AcrossMachines.Notes, "; "))
	}
	for _, sz := range c.Sizes {
		fmt.Fprintf(b, "\n  %s\n", costTitle(sz))
		tw := tabwriter.NewWriter(b, 2, 4, 3, ' ', 0)
		cols := costColumns(sz)
		header := []string{"   "}
		for _, col := range cols {
			header = append(header, col.side+" "+col.Dataplane+"@"+col.Version)
		}
		fmt.Fprintln(tw, strings.Join(header, "\t"))
		for _, r := range costRows {
			cells := []string{"    " + r.label}
			for _, col := range cols {
				cells = append(cells, costCell(r, col.DataplaneCost))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	costMissing(b, c, "  ")
	for _, n := range c.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(b, "  warning: %s\n", w)
	}
	return nil
}

// costMissing says once per side and dataplane where the model has no
// figure.
func costMissing(b *strings.Builder, c *Costs, indent string) {
	if len(c.Sizes) == 0 {
		return
	}
	for _, col := range costColumns(c.Sizes[0]) {
		if col.Missing != "" {
			fmt.Fprintf(b, "%sno figure for %s %s@%s: %s\n", indent, col.side, col.Dataplane, col.Version, col.Missing)
		}
	}
}

// costMarkdown is the cost section of the Markdown report.
func costMarkdown(b *strings.Builder, c *Costs) {
	if c == nil {
		return
	}
	fmt.Fprintf(b, "\n### Cost beside it\n\nsvclab plan's model, calibration %s; %s.\n", c.Calibration, costLegend)
	if c.AcrossMachines != nil {
		fmt.Fprintf(b, "\n**Extrapolating across machines:** %s\n", strings.Join(c.AcrossMachines.Notes, "; "))
	}
	for _, sz := range c.Sizes {
		fmt.Fprintf(b, "\n%s:\n\n", costTitle(sz))
		cols := costColumns(sz)
		b.WriteString("| |")
		for _, col := range cols {
			fmt.Fprintf(b, " %s `%s@%s` |", col.side, col.Dataplane, col.Version)
		}
		b.WriteString("\n|" + strings.Repeat(" --- |", len(cols)+1) + "\n")
		for _, r := range costRows {
			fmt.Fprintf(b, "| %s |", r.label)
			for _, col := range cols {
				fmt.Fprintf(b, " %s |", costCell(r, col.DataplaneCost))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	costMissing(b, c, "- ")
	for _, n := range c.Notes {
		fmt.Fprintf(b, "- note: %s\n", n)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(b, "- warning: %s\n", w)
	}
}
