package migrate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the report formats Write takes.
var Formats = []string{"text", "markdown", "json"}

// maxServices is how many Services a class names in text and Markdown
// (JSON names them all).
const maxServices = 12

// Write prints r in format: text for people, markdown for a pull
// request, json for tools.
func Write(w io.Writer, r *Result, format string) error {
	switch format {
	case "text":
		return writeText(w, r)
	case "markdown":
		return writeMarkdown(w, r)
	case "json":
		return writeJSON(w, r)
	}
	return fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
}

func summary(r *Result) string {
	if len(r.Differences) == 0 {
		return fmt.Sprintf("%d Services, %d paths compared: every path behaves the same.", r.Services, r.Paths)
	}
	return fmt.Sprintf("%d Services, %d paths compared: %d differ, in %d classes.", r.Services, r.Paths, len(r.Differences), len(r.Classes))
}

func writeText(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "svclab migrate\n  from %s\n  to   %s\n%s\n", r.From, r.To, summary(r))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for i, c := range r.Classes {
		fmt.Fprintf(&b, "\n%d. %s: %d paths, %d Services\n", i+1, classTitle(c), c.Count, len(c.Services))
		if c.Cause != nil {
			fmt.Fprintf(&b, "   why:  %s\n   do:   %s\n   ref:  %s\n", c.Cause.What, c.Cause.Action, c.Cause.Reference)
		} else {
			b.WriteString("   why:  not in svclab's catalog of causes; the rules that decided each side are below\n")
		}
		for _, g := range c.Groups {
			fmt.Fprintf(&b, "   - %s: %s (%d paths, %s)\n", g.Kind, g.Change, g.Count, strings.Join(g.Families, ", "))
			fmt.Fprintf(&b, "       e.g. %s\n         from: %s\n         to:   %s\n", g.Example.Path, g.Example.From, g.Example.To)
			for _, rule := range g.FromRules {
				fmt.Fprintf(&b, "         from rule: %s\n", rule)
			}
			for _, rule := range g.ToRules {
				fmt.Fprintf(&b, "         to rule:   %s\n", rule)
			}
		}
		fmt.Fprintf(&b, "   Services: %s\n", someServices(c.Services))
	}
	verificationText(&b, r.Verification)
	if err := costText(&b, r.Cost); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdown(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## kube-proxy migration: `%s` → `%s`\n\n%s\n", r.From, r.To, summary(r))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n> %s\n", n)
	}
	for _, c := range r.Classes {
		fmt.Fprintf(&b, "\n### %s (%d paths, %d Services)\n\n", classTitle(c), c.Count, len(c.Services))
		if c.Cause != nil {
			fmt.Fprintf(&b, "- **Why:** %s\n- **What to do:** %s\n- **Reference:** %s\n", c.Cause.What, c.Cause.Action, c.Cause.Reference)
		} else {
			b.WriteString("- **Why:** not in svclab's catalog of causes; see the rules below\n")
		}
		fmt.Fprintf(&b, "- **Services:** %s\n\n", someServices(c.Services))
		b.WriteString("| path | change | paths | example | from | to |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, g := range c.Groups {
			fmt.Fprintf(&b, "| %s | %s | %d | `%s` | %s | %s |\n", g.Kind, g.Change, g.Count, g.Example.Path, g.Example.From, g.Example.To)
		}
		for _, g := range c.Groups {
			fmt.Fprintf(&b, "\n<details><summary>rules: %s</summary>\n\n```\n", g.Kind)
			for _, rule := range g.FromRules {
				fmt.Fprintf(&b, "from: %s\n", rule)
			}
			for _, rule := range g.ToRules {
				fmt.Fprintf(&b, "to:   %s\n", rule)
			}
			b.WriteString("```\n</details>\n")
		}
	}
	verificationMarkdown(&b, r.Verification)
	costMarkdown(&b, r.Cost)
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonClass is a class as JSON shows it.
type jsonClass struct {
	Cause    *Cause   `json:"cause"`
	Paths    int      `json:"paths"`
	Services []string `json:"services"`
	Groups   []Group  `json:"groups"`
}

func writeJSON(w io.Writer, r *Result) error {
	out := struct {
		From        string        `json:"from"`
		To          string        `json:"to"`
		Services    int           `json:"services"`
		Paths       int           `json:"paths"`
		Differences int           `json:"differences"`
		Notes       []string      `json:"notes,omitempty"`
		Classes     []jsonClass   `json:"classes"`
		Verify      *Verification `json:"verify,omitempty"`
		Cost        *Costs        `json:"cost,omitempty"`
	}{Verify: r.Verification, Cost: r.Cost, From: r.From.String(), To: r.To.String(), Services: r.Services, Paths: r.Paths, Differences: len(r.Differences), Notes: r.Notes, Classes: []jsonClass{}}
	for _, c := range r.Classes {
		out.Classes = append(out.Classes, jsonClass{Cause: c.Cause, Paths: c.Count, Services: c.Services, Groups: c.Groups})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// classTitle names a class by its cause, or by its first group.
func classTitle(c Class) string {
	if c.Cause != nil {
		return c.Cause.ID
	}
	return "unexplained: " + c.Groups[0].Kind + ": " + c.Groups[0].Change
}

func someServices(s []string) string {
	if len(s) <= maxServices {
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(s[:maxServices], ", "), len(s)-maxServices)
}
