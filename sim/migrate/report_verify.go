package migrate

import (
	"fmt"
	"slices"
	"strings"
)

// maxChecksShown is how many checks of a verdict text and Markdown show
// (JSON shows them all).
const maxChecksShown = 6

// verificationText is the --verify section of the text report.
func verificationText(b *strings.Builder, v *Verification) {
	if v == nil {
		return
	}
	b.WriteString("\nKernel verification (--verify): each class's probes sent through the rules each side's engine loaded into a lab node\n")
	for _, k := range v.Kernels {
		fmt.Fprintf(b, "  kernel: %s\n", k)
	}
	for _, d := range v.Verdicts {
		fmt.Fprintf(b, "\n  %s: %s\n", d.State, d.Class)
		if d.Reason != "" {
			fmt.Fprintf(b, "    %s\n", d.Reason)
		}
		for _, c := range shownChecks(d.Checks) {
			fmt.Fprintf(b, "    %s %s %s\n      tracer: %s\n      kernel: %s\n", checkMark(c), c.Side, c.Dataplane+" "+c.Path.String(), c.Tracer, kernelText(c))
		}
	}
}

// verificationMarkdown is the --verify section of the Markdown report.
func verificationMarkdown(b *strings.Builder, v *Verification) {
	if v == nil {
		return
	}
	b.WriteString("\n### Kernel verification (`--verify`)\n\n")
	for _, k := range v.Kernels {
		fmt.Fprintf(b, "- kernel: %s\n", k)
	}
	b.WriteString("\n| class | verdict | why |\n| --- | --- | --- |\n")
	for _, d := range v.Verdicts {
		fmt.Fprintf(b, "| %s | **%s** | %s |\n", d.Class, d.State, strings.ReplaceAll(d.Reason, "|", "\\|"))
	}
	for _, d := range v.Verdicts {
		fmt.Fprintf(b, "\n<details><summary>%s: %s</summary>\n\n| | side | path | tracer | kernel |\n| --- | --- | --- | --- | --- |\n", d.State, d.Class)
		for _, c := range shownChecks(d.Checks) {
			fmt.Fprintf(b, "| %s | %s %s | `%s` | %s | %s |\n", checkMark(c), c.Side, c.Dataplane, c.Path, c.Tracer, kernelText(c))
		}
		b.WriteString("\n</details>\n")
	}
}

func shownChecks(cs []Check) []Check {
	if len(cs) > maxChecksShown {
		return cs[:maxChecksShown]
	}
	return cs
}

func checkMark(c Check) string {
	switch {
	case !c.Sent:
		return "not sent"
	case c.Agree:
		return "agrees"
	}
	return "DISAGREES"
}

// kernelText is what the kernel did with a check's connections, the
// distinct observations joined.
func kernelText(c Check) string {
	if !c.Sent {
		return c.Why
	}
	var seen []string
	for _, o := range c.Kernel {
		if s := o.String(); !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	out := fmt.Sprintf("%d connections: %s", len(c.Kernel), strings.Join(seen, "; "))
	if !c.Agree {
		out += " — " + c.Why
	}
	return out
}
