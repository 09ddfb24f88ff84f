package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Row is one line of the merged report: a fairness run (one Service) or a
// sweep's points of one cell.
type Row struct {
	Sample      string  `json:"sample"`
	Pool        string  `json:"pool"`
	Node        string  `json:"node"`
	CPU         string  `json:"cpu"`
	Kernel      string  `json:"kernel"`
	Scenario    string  `json:"scenario"`
	Dataplane   string  `json:"dataplane"`
	Version     string  `json:"kube_proxy_version"`
	What        string  `json:"what"` // the Service, or "N points"
	Complete    bool    `json:"complete"`
	Jain        float64 `json:"jain,omitempty"`
	ChiSquareP  float64 `json:"chi2_p,omitempty"`
	CountsAgree *bool   `json:"counts_agree,omitempty"`
	ConnPerSec  float64 `json:"conn_per_s"`
	P99us       float64 `json:"p99_us"`
}

// Rows lists the report's rows, sample by sample.
func Rows(samples []Sample) []Row {
	var rows []Row
	for _, s := range samples {
		for _, c := range s.Cells {
			base := Row{Sample: s.Key, Pool: c.Info.Pool, Node: c.Info.Node, CPU: c.Meta.CPU, Kernel: c.Meta.Kernel,
				Scenario: c.Info.Scenario, Dataplane: c.Info.Dataplane, Version: c.Info.Version, Complete: c.Summary.Complete}
			for _, r := range c.Summary.Runs {
				row := base
				agree := r.CountsAgree
				row.What, row.Jain, row.ChiSquareP, row.CountsAgree = r.Service, r.Jain, r.ChiSquareP, &agree
				row.ConnPerSec, row.P99us = r.ConnPerSec, r.P99us
				rows = append(rows, row)
			}
			if n := len(c.Summary.Points); n > 0 {
				row := base
				row.What = fmt.Sprintf("%d points", n)
				for _, p := range c.Summary.Points {
					row.P99us = max(row.P99us, p.P99us)
					row.ConnPerSec += p.ConnPerSec / float64(n)
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// WriteReport writes the rows as text (aligned columns), markdown or json.
func WriteReport(w io.Writer, rows []Row, format string) error {
	switch format {
	case "json":
		return writeJSON(w, rows)
	case "markdown":
		return writeTable(w, rows, "| ", " | ", " |", true)
	case "text", "":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if err := writeTable(tw, rows, "", "\t", "", false); err != nil {
			return err
		}
		return tw.Flush()
	}
	return fmt.Errorf("--format %q: want text, markdown or json", format)
}

var reportHeader = []string{"pool", "node", "cpu", "kernel", "scenario", "dataplane", "kube-proxy", "what", "complete", "jain", "chi2 p", "counts agree", "conn/s", "p99 µs"}

func writeTable(w io.Writer, rows []Row, open, sep, end string, rule bool) error {
	line := func(cells []string) error {
		_, err := fmt.Fprintln(w, open+strings.Join(cells, sep)+end)
		return err
	}
	if err := line(reportHeader); err != nil {
		return err
	}
	if rule {
		dashes := make([]string, len(reportHeader))
		for i := range dashes {
			dashes[i] = "---"
		}
		if err := line(dashes); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if err := line(r.cells()); err != nil {
			return err
		}
	}
	return nil
}

func (r Row) cells() []string {
	jain, chi, agree := "-", "-", "-"
	if r.CountsAgree != nil {
		jain, chi, agree = fmt.Sprintf("%.4f", r.Jain), fmt.Sprintf("%.3f", r.ChiSquareP), fmt.Sprint(*r.CountsAgree)
	}
	return []string{r.Pool, r.Node, r.CPU, r.Kernel, r.Scenario, r.Dataplane, r.Version, r.What, fmt.Sprint(r.Complete),
		jain, chi, agree, fmt.Sprintf("%.0f", r.ConnPerSec), fmt.Sprintf("%.0f", r.P99us)}
}

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
