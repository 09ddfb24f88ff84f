package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
)

// planComposition reads a cluster's objects and renders its ruleset at
// scale times its size: the objects themselves at 1×, otherwise services
// generated in the cluster's shape (its Mix, as svclab import --scale).
func planComposition(path string, scale float64, stderr io.Writer) (*cost.Composition, error) {
	name, raw, err := readObjects(path)
	if err != nil {
		return nil, err
	}
	o, err := objects.Decode(name, raw)
	if err != nil {
		return nil, err
	}
	for _, w := range o.Warnings {
		fmt.Fprintln(stderr, "svclab plan: warning: "+w)
	}
	mdl, err := scaledModel(&model.Model{Cluster: model.DefaultCluster(), Services: o.Services}, o.Shape(""), scale)
	if err != nil {
		return nil, err
	}
	c, err := cost.CompositionOf(name, scale, mdl)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return &c, nil
}

// scaledModel is mdl at scale times its size: mdl itself at 1×, otherwise
// services generated in the cluster's shape (its Mix, as svclab import
// --scale), on mdl's cluster (svclab plan and svclab migrate --scale).
func scaledModel(mdl *model.Model, shape objects.Shape, scale float64) (*model.Model, error) {
	if scale == 1 {
		return mdl, nil
	}
	n := int(math.Round(scale * float64(shape.Proxied())))
	if n < 1 {
		return nil, usagef("--scale %g: %g × %d proxied services is no service", scale, scale, shape.Proxied())
	}
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, Seed: 1, Mix: shape.Mix()})
	if err != nil {
		return nil, usagef("--scale %g: %d services of this shape: %v", scale, n, err)
	}
	out := *mdl
	out.Services = gen
	return &out, nil
}

// checkScale refuses a --scale that is no multiple svclab renders.
func checkScale(scale float64) error {
	if math.IsNaN(scale) || scale <= 0 || scale > 1e4 {
		return usagef("--scale %g: want a multiple > 0 (at most 10000)", scale)
	}
	return nil
}

// writeBudgets answers the --budget questions, per budget and dataplane.
func writeBudgets(w io.Writer, format string, q cost.Query, m *cost.Model, budgets []cost.Budget) error {
	var all []cost.BudgetResult
	for _, b := range budgets {
		rs, err := m.Largest(q, b)
		if err != nil {
			return usagef("%v", err)
		}
		all = append(all, rs...)
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Query       cost.Query          `json:"query"`
			Calibration cost.Source         `json:"calibration"`
			Budgets     []cost.BudgetResult `json:"budgets"`
			Warnings    []string            `json:"warnings,omitempty"`
		}{q, m.Source, all, m.Warnings})
	}
	fmt.Fprintf(w, "calibration: %s\n\n", m.Source)
	sep, tw := "\t", tabwriter.NewWriter(w, 2, 4, 3, ' ', 0)
	if format == "markdown" {
		sep = " | "
	}
	row := func(cells ...string) {
		line := strings.Join(cells, sep)
		if format == "markdown" {
			line = "| " + line + " |"
		}
		fmt.Fprintln(tw, line)
	}
	row("budget", "dataplane", "largest size within it")
	if format == "markdown" {
		row("---", "---", "---")
	}
	for _, r := range all {
		row(r.Budget.Text+" ("+cost.BudgetFigures[r.Budget.Figure]+")", r.Dataplane, budgetText(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range m.Warnings {
		fmt.Fprintln(w, "warning:", s)
	}
	return nil
}

func budgetText(r cost.BudgetResult) string {
	switch {
	case !r.Predicted:
		return "not calibrated"
	case r.Unbounded:
		return fmt.Sprintf("within it up to %d services (the whole range)", r.Services)
	case r.Services == 0:
		return "over it even at 1 service"
	case r.Scale > 0:
		return fmt.Sprintf("%d services (%.3g× the cluster)", r.Services, r.Scale)
	}
	return fmt.Sprintf("%d services", r.Services)
}
