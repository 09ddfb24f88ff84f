package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
)

// Report is one node's audit.
type Report struct {
	Node    string `json:"node"`
	Mode    string `json:"mode"`
	Version string `json:"kubeProxyVersion"`
	Family  string `json:"family"`
	// Services are the Services with findings or effects, by name; the
	// node-wide findings come first, under Service "".
	Services []ServiceReport `json:"services"`
	// Checked counts the Services audited and the paths routed.
	Checked int `json:"servicesChecked"`
	Paths   int `json:"pathsRouted"`
	// MatchesVersions are other kube-proxy versions whose rules the node
	// holds exactly (none when none was tried or none matched).
	MatchesVersions []string `json:"matchesVersions,omitempty"`
	Summary         Summary  `json:"summary"`
}

// ServiceReport is what differs for one Service and what it does.
type ServiceReport struct {
	Service string `json:"service"`
	// Gone is set for a Service the objects lack (deleted, or never
	// there) whose rules the node still holds.
	Gone     bool      `json:"gone,omitempty"`
	Findings []Finding `json:"findings"`
	Effects  []Effect  `json:"effects,omitempty"`
}

// Summary counts the findings.
type Summary struct {
	Missing  int `json:"missing"`
	Stale    int `json:"stale"`
	Differs  int `json:"differs"`
	Services int `json:"servicesAffected"`
	Paths    int `json:"pathsChanged"`
}

// Clean reports whether the node holds exactly kube-proxy's rules.
func (r *Report) Clean() bool {
	return r.Summary.Missing+r.Summary.Stale+r.Summary.Differs+r.Summary.Paths == 0
}

// build groups the findings and effects by Service.
func (r *Report) build(findings []Finding, effects []Effect, services model.List) {
	known := map[string]bool{}
	for i := 0; i < services.Len(); i++ {
		known[kube.Key(services.At(i))] = true
	}
	r.Checked = len(known)
	by := map[string]*ServiceReport{}
	get := func(s string) *ServiceReport {
		if by[s] == nil {
			by[s] = &ServiceReport{Service: s, Gone: s != "" && !known[s]}
		}
		return by[s]
	}
	for _, f := range findings {
		sr := get(f.Service)
		sr.Findings = append(sr.Findings, f)
		switch f.Kind {
		case Missing:
			r.Summary.Missing++
		case Stale:
			r.Summary.Stale++
		case Differs:
			r.Summary.Differs++
		}
	}
	for _, e := range effects {
		sr := get(e.Service)
		sr.Effects = append(sr.Effects, e)
		r.Summary.Paths++
	}
	for _, k := range sortedKeys(by) {
		r.Services = append(r.Services, *by[k])
		if k != "" {
			r.Summary.Services++
		}
	}
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "node %s: kube-proxy %s, %s mode, %s: %s\n", r.Node, r.Version, r.Mode, r.Family, r.verdict())
	if len(r.MatchesVersions) > 0 {
		fmt.Fprintf(b, "%s\n", r.versionNote())
	}
	for _, s := range r.Services {
		fmt.Fprintf(b, "\n%s\n", serviceTitle(s))
		for _, e := range s.Effects {
			fmt.Fprintf(b, "  traffic %s: %s\n", e.Path, strings.Join(e.Changes, "; "))
			fmt.Fprintf(b, "    kube-proxy's rules: %s\n    the node's rules:   %s\n", e.Expected, e.Actual)
		}
		for _, f := range s.Findings {
			fmt.Fprintf(b, "  %s\n", findingText(f))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as a Markdown section.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# Audit of node %s\n\nkube-proxy %s, %s mode, %s: **%s**\n", r.Node, r.Version, r.Mode, r.Family, r.verdict())
	if len(r.MatchesVersions) > 0 {
		fmt.Fprintf(b, "\n%s\n", r.versionNote())
	}
	for _, s := range r.Services {
		fmt.Fprintf(b, "\n## %s\n\n", serviceTitle(s))
		if len(s.Effects) > 0 {
			b.WriteString("| path | what changes | kube-proxy's rules | the node's rules |\n| --- | --- | --- | --- |\n")
			for _, e := range s.Effects {
				fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(e.Path), cell(strings.Join(e.Changes, "; ")), cell(e.Expected), cell(e.Actual))
			}
			b.WriteString("\n")
		}
		for _, f := range s.Findings {
			fmt.Fprintf(b, "- %s\n", cell(findingText(f)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) verdict() string {
	if r.Clean() {
		return fmt.Sprintf("clean (%d Services, as kube-proxy writes them)", r.Checked)
	}
	sm := r.Summary
	return fmt.Sprintf("%d missing, %d stale, %d differing; %d Services affected, %d paths change (of %d routed)",
		sm.Missing, sm.Stale, sm.Differs, sm.Services, sm.Paths, r.Paths)
}

func serviceTitle(s ServiceReport) string {
	switch {
	case s.Service == "":
		return "node-wide"
	case s.Gone && serviceOfPortName(s.Service) == "":
		return "virtual server " + s.Service + " (no Service in the objects has this address: a deleted Service's, left behind)"
	case s.Gone:
		return "Service " + s.Service + " (not in the objects: deleted, its rules left behind)"
	}
	return "Service " + s.Service
}

func findingText(f Finding) string {
	text := string(f.Kind) + " " + f.Object
	if f.Item != "" {
		text += ": " + f.Item
	}
	switch {
	case f.Kind == Differs:
		text += fmt.Sprintf(" (kube-proxy: %s; node: %s)", orNone(f.Expected), orNone(f.Actual))
	case f.Item == "" && f.Expected != "":
		text += " (" + f.Expected + ")"
	case f.Item == "" && f.Actual != "":
		text += " (" + f.Actual + ")"
	case f.Expected != "" || f.Actual != "":
		text += " = " + f.Expected + f.Actual
	}
	return text
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// versionNote says the node holds another version's rules exactly.
func (r *Report) versionNote() string {
	last := r.MatchesVersions[len(r.MatchesVersions)-1]
	return fmt.Sprintf("The node holds exactly what kube-proxy %s writes for these objects: its rules are another version's layout, not damage (audit with --kube-proxy-version %s).",
		strings.Join(r.MatchesVersions, " and "), last)
}
