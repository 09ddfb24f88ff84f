package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/plot"
	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
)

// timelinePlot is the outcomes-per-second plot of the i-th timeline run.
func timelinePlot(i int, r results.TimelineRun) plotSpec {
	return plotSpec{
		name:    fmt.Sprintf("timeline-%02d-%s", i+1, fileSafe(r.Dataplane)),
		caption: fmt.Sprintf("Outcomes per second, %s (events dashed)", r.Dataplane),
		make:    func() (*gplot.Plot, error) { return plot.Timeline(r) },
	}
}

// writeTimelines writes each timeline run: what happened in words, the
// events with their latencies, the totals per traffic generator, and the
// plot.
func writeTimelines(w io.Writer, runs []results.TimelineRun, plots map[int]plotFile) {
	for i, r := range runs {
		engine := strings.TrimSpace(r.Engine + " " + r.KubeProxyVersion)
		fmt.Fprintf(w, "## Timeline: %s, engine %s\n\n", r.Dataplane, engine)
		for _, line := range TimelineFindings(r) {
			fmt.Fprintf(w, "- %s\n", line)
		}
		fmt.Fprintf(w, "\n| at (s) | event | probe | probe latency (s) | kube-proxy latency (s) | served | refused | timed out | lost | blackholed | misdelivered |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, e := range r.Events {
			o := e.After
			fmt.Fprintf(w, "| %.1f | %s | %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", e.AtS, cell(e.What), cell(e.Probe), latencyCell(e),
				kubeProxyCell(e.KubeProxyLatencyS), o.Served, o.Refused, o.TimedOut, o.Lost, o.Blackholed, o.Misdelivered)
		}
		fmt.Fprintln(w)
		writeLatencyClasses(w, r)
		fmt.Fprintf(w, "| traffic | served | refused | timed out | lost | blackholed | misdelivered |\n|---|---|---|---|---|---|---|\n")
		for g, t := range r.Totals {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d |\n", cell(r.Traffic[g]), t.Served, t.Refused, t.TimedOut, t.Lost, t.Blackholed, t.Misdelivered)
		}
		fmt.Fprintln(w)
		if pf, ok := plots[i]; ok {
			writeImage(w, "###", pf)
		}
	}
}

func latencyCell(e results.TimelineEvent) string {
	switch {
	case e.ProbeLatencyS != nil:
		return fmt.Sprintf("%.3f", *e.ProbeLatencyS)
	case !e.Converged:
		return "never (in the window)"
	}
	return "–"
}

func kubeProxyCell(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.3f", x)
	}
	return strings.Join(parts, ", ")
}

// TimelineFindings says in words what a timeline run showed: for each event,
// whether traffic kept reaching deleted pods or removed endpoints, and how
// long the new state took to be reached.
func TimelineFindings(r results.TimelineRun) []string {
	var out []string
	for i, e := range r.Events {
		end := r.DurationS
		if i+1 < len(r.Events) {
			end = r.Events[i+1].AtS
		}
		bad := e.After.Blackholed + e.After.Misdelivered
		switch {
		case e.Probe == results.ProbeRestart:
			out = append(out, restartOf(r, i).finding())
		case !e.Converged && bad > 0:
			out = append(out, fmt.Sprintf("After %q at %.0f s, %d packets or connections still reached deleted pods' addresses (%d) or removed endpoints (%d) until %.0f s: the old state was never left.",
				e.What, e.AtS, bad, e.After.Blackholed, e.After.Misdelivered, end))
		case !e.Converged:
			out = append(out, fmt.Sprintf("After %q at %.0f s, the new state (%s) was not reached in the window.", e.What, e.AtS, e.Probe))
		case e.LastedUntil(end) && bad > 0:
			out = append(out, fmt.Sprintf("After %q at %.0f s, traffic kept reaching deleted pods' addresses (%d) or removed endpoints (%d) for the whole %.0f s until the next event (the last one %.3f s after the event): the old state was never left while nothing else changed.",
				e.What, e.AtS, e.After.Blackholed, e.After.Misdelivered, end-e.AtS, *e.ProbeLatencyS))
		case e.ProbeLatencyS != nil:
			s := fmt.Sprintf("After %q at %.0f s, the new state was reached in %.3f s (%s)", e.What, e.AtS, *e.ProbeLatencyS, e.Probe)
			if bad > 0 {
				s += fmt.Sprintf("; %d blackholed and %d misdelivered before it", e.After.Blackholed, e.After.Misdelivered)
			} else {
				s += "; nothing reached a deleted pod or a removed endpoint"
			}
			out = append(out, s+".")
		}
	}
	out = append(out, fmt.Sprintf("In all, %d blackholed and %d misdelivered; probe latency p50 %.3f s, p99 %.3f s over the converged changes; %d changes never converged.",
		r.Blackholed, r.Misdelivered, r.ProbeLatencyP50S, r.ProbeLatencyP99S, r.Unconverged))
	return out
}
