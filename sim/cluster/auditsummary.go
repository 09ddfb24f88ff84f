package cluster

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/audit"
)

// NodeResult is one node of a cluster audit: its pod's report, or why the
// pod gave none.
type NodeResult struct {
	Node string `json:"node"`
	Pod  string `json:"pod,omitempty"`
	// Audit is what the pod printed; nil when it printed nothing.
	Audit *NodeAudit `json:"audit,omitempty"`
	// NoReport says why the pod printed nothing (its phase, its
	// container's state and reason).
	NoReport string `json:"noReport,omitempty"`
}

// Verdict is the node's line: clean, findings, the audit's error, or no
// report.
func (n NodeResult) Verdict() string {
	switch {
	case n.Audit == nil:
		return "no report: " + n.NoReport
	case n.Audit.Report == nil || n.Audit.Exit > 1:
		return fmt.Sprintf("audit failed (exit %d): %s", n.Audit.Exit, n.Audit.Error)
	case n.Audit.Report.Clean():
		return "clean"
	}
	return "findings"
}

// Clean reports whether the node's rules are exactly kube-proxy's.
func (n NodeResult) Clean() bool { return n.Verdict() == "clean" }

// AuditSummary is a cluster audit, by node.
type AuditSummary struct {
	Clean bool         `json:"clean"`
	Nodes []NodeResult `json:"nodes"`
}

// Summarize sorts the nodes by name; the cluster is clean when there is a
// node and every one is.
func Summarize(nodes []NodeResult) AuditSummary {
	s := AuditSummary{Nodes: append([]NodeResult(nil), nodes...), Clean: len(nodes) > 0}
	sort.Slice(s.Nodes, func(i, j int) bool { return s.Nodes[i].Node < s.Nodes[j].Node })
	for _, n := range s.Nodes {
		s.Clean = s.Clean && n.Clean()
	}
	return s
}

// Write writes the summary as text (a table, then each node's findings as
// `svclab audit` shows them), markdown or json.
func (s AuditSummary) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		return writeJSON(w, s)
	case "markdown":
		return s.writeMarkdown(w)
	case "text", "":
		return s.writeText(w)
	}
	return fmt.Errorf("--format %q: want text, markdown or json", format)
}

var auditHeader = []string{"node", "mode", "kube-proxy", "missing", "stale", "differs", "services affected", "paths changed", "verdict"}

func (n NodeResult) cells() []string {
	if n.Audit == nil || n.Audit.Report == nil {
		return []string{n.Node, "-", "-", "-", "-", "-", "-", "-", n.Verdict()}
	}
	r := n.Audit.Report
	sm := r.Summary
	return []string{n.Node, r.Mode, r.Version, fmt.Sprint(sm.Missing), fmt.Sprint(sm.Stale), fmt.Sprint(sm.Differs),
		fmt.Sprint(sm.Services), fmt.Sprint(sm.Paths), n.Verdict()}
}

func (s AuditSummary) headline() string {
	clean := 0
	for _, n := range s.Nodes {
		if n.Clean() {
			clean++
		}
	}
	return fmt.Sprintf("cluster audit: %d nodes, %d clean, %d not", len(s.Nodes), clean, len(s.Nodes)-clean)
}

func (s AuditSummary) writeText(w io.Writer) error {
	fmt.Fprintf(w, "%s\n\n", s.headline())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(auditHeader, "\t"))
	for _, n := range s.Nodes {
		fmt.Fprintln(tw, strings.Join(n.cells(), "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return s.writeFindings(w, (*audit.Report).WriteText)
}

func (s AuditSummary) writeMarkdown(w io.Writer) error {
	row := func(cells []string) {
		esc := make([]string, len(cells))
		for i, c := range cells {
			esc[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(esc, " | "))
	}
	fmt.Fprintf(w, "# Cluster %s\n\n", strings.TrimPrefix(s.headline(), "cluster "))
	row(auditHeader)
	row(strings.Split(strings.Repeat("---,", len(auditHeader)-1)+"---", ","))
	for _, n := range s.Nodes {
		row(n.cells())
	}
	return s.writeFindings(w, (*audit.Report).WriteMarkdown)
}

// writeFindings writes, after a blank line, each report with findings.
func (s AuditSummary) writeFindings(w io.Writer, write func(*audit.Report, io.Writer) error) error {
	for _, n := range s.Nodes {
		if n.Clean() || n.Audit == nil || n.Audit.Report == nil {
			continue
		}
		fmt.Fprintln(w)
		if err := write(n.Audit.Report, w); err != nil {
			return err
		}
	}
	return nil
}
