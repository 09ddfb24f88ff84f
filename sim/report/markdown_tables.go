package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// writePointsTable writes the sweep's points; "-" is not measured.
func writePointsTable(w io.Writer, points []results.Point) {
	fmt.Fprintf(w, "## Sweep points\n\nMedians over repetitions; connections and errors are totals. \"-\" is not measured.\n\n")
	fmt.Fprintf(w, "| dataplane | services | position | reps | p50 µs | p90 µs | p99 µs | CPU µs/conn | conn/s | sync full | sync incr. | rules | bytes | connections | errors |\n")
	fmt.Fprintf(w, "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, p := range points {
		fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d |\n",
			cell(p.Dataplane), p.Services, cell(p.Position), p.Repetitions,
			measured(p.P50us), measured(p.P90us), measured(p.P99us), measured(p.CPUusPerConn), rate(p.ConnPerSec),
			seconds(p.SyncFullS), seconds(p.SyncIncrementalS), count(p.Rules), count(p.Bytes), p.Connections, p.Errors)
	}
	fmt.Fprintln(w)
}

// writeFitsTable writes the least-squares fits against services.
func writeFitsTable(w io.Writer, fits []results.Fit) {
	fmt.Fprintf(w, "## Fits against services\n\n")
	if len(fits) == 0 {
		fmt.Fprintf(w, "No fits: a fit needs at least %d service counts.\n\n", metric.MinFitServiceCounts)
		return
	}
	fmt.Fprintf(w, "Least-squares lines through the medians. Slopes are in ns per added service and intercepts in µs for every metric, "+
		"including sync_full_s (seconds × 1e9 per service). ns/rule divides the slope by the rules a first packet evaluates per added service.\n\n")
	fmt.Fprintf(w, "| dataplane | position | metric | slope ns/service | 95%% interval | intercept µs | R² | points | ns/rule |\n")
	fmt.Fprintf(w, "|---|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, f := range fits {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.3f | %d | %s |\n",
			cell(f.Dataplane), cell(f.Position), f.Metric, metric.FormatNumber(f.SlopeNsPerService), interval(f),
			metric.FormatNumber(f.InterceptUs), f.R2, f.N, measured(f.NsPerRule))
	}
	fmt.Fprintln(w)
}

// writeFairness writes one section per fairness run: its figures, its
// endpoints, its statistic rules' counters and its bar chart.
func writeFairness(w io.Writer, runs []results.FairnessRun, plots map[int]plotFile, overview []plotFile) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "## Fairness\n\n")
	writeAcross(w, runs)
	for _, pf := range overview {
		writeImage(w, "###", pf)
	}
	for i, r := range runs {
		fmt.Fprintf(w, "### %s: %s\n\n", cell(r.Dataplane), cell(r.Service))
		if path := trafficPath(r); path != "" {
			fmt.Fprintf(w, "Traffic %s.\n", cell(path))
		}
		fmt.Fprintf(w, "%s, %d errors, %s mode, %s.\n", loadLine(r), r.Errors, r.Mode, connectLatency(r))
		switch {
		case r.ExpectDropped:
			fmt.Fprintf(w, "%s.\n\n", cell(droppedVerdict(r)))
		case r.Mode == "keepalive":
			fmt.Fprintf(w, "%s%s.\n\n", cell(KeepaliveVerdict(r)), cell(witness(r)))
		default:
			fmt.Fprintf(w, "Chi-square p %s (%s), Jain index = %.5f, max/min = %.4f%s.\n\n",
				formatP(r.ChiSquareP), verdict(r.ChiSquareP), r.Jain, r.MaxMinRatio, agreement(r))
		}
		fmt.Fprintf(w, "| endpoint | pod | served | share | 95%% interval | expected | kernel DNAT | sources seen |\n|---|---|--:|--:|--:|--:|--:|---|\n")
		for _, e := range r.Endpoints {
			fmt.Fprintf(w, "| %s | %s | %d | %.4f | [%.4f, %.4f] | %.4f | %s | %s |\n",
				cell(e.Endpoint), cell(e.Pod), e.Count, e.Share, e.ShareLo, e.ShareHi, e.Expected, dnat(r, e), cell(sources(e)))
		}
		fmt.Fprintln(w)
		if lo := leftOutLine(r); lo != "" {
			fmt.Fprintf(w, "%s.\n\n", cell(lo))
		}
		writeRules(w, r)
		if pf, ok := plots[i]; ok {
			fmt.Fprintf(w, "![%s](%s)\n\n[SVG](%s)\n\n", pf.caption, pf.png, pf.svg)
		}
	}
}

// writeRules writes the kernel counters of the service chain's rules.
func writeRules(w io.Writer, r results.FairnessRun) {
	if len(r.Rules) == 0 {
		return
	}
	fmt.Fprintf(w, "Kernel counters of %s (%d new connections entered it):\n\n", cell(r.Rules[0].Chain), r.ChainEntered)
	fmt.Fprintf(w, "| rule | target | probability | reached | took | observed | 95%% interval | p |\n|--:|---|--:|--:|--:|--:|--:|--:|\n")
	for _, rule := range r.Rules {
		fmt.Fprintf(w, "| %d | %s | %.10f | %d | %d | %.4f | [%.4f, %.4f] | %.3g |\n",
			rule.Index, cell(rule.Target), rule.Probability, rule.Reached, rule.Packets, rule.Observed, rule.ObservedLo, rule.ObservedHi, rule.P)
	}
	fmt.Fprintln(w)
}

// writeAcross writes the fairness runs side by side, one row per
// dataplane (and service): the first table of a fairness report.
func writeAcross(w io.Writer, runs []results.FairnessRun) {
	fmt.Fprintf(w, "### Across dataplanes\n\n| dataplane | service | served | shares (expected) | chi-square p | verdict | Jain | kernel witness |\n|---|---|--:|---|--:|---|--:|---|\n")
	for _, r := range runs {
		shares, p, v, jain := "-", "-", droppedVerdict(r), "-"
		if !r.ExpectDropped {
			parts := make([]string, len(r.Endpoints))
			for i, e := range r.Endpoints {
				parts[i] = percent(e.Share)
			}
			shares = strings.Join(parts, " / ") + " (" + expectedShares(r) + ")"
			p, v, jain = strings.TrimPrefix(formatP(r.ChiSquareP), "= "), verdict(r.ChiSquareP), fmt.Sprintf("%.4f", r.Jain)
		}
		fmt.Fprintf(w, "| %s | %s | %s %s | %s | %s | %s | %s | %s |\n", cell(r.Dataplane), cell(r.Service),
			thousands(int64(servedTotal(r))), servedUnit(r), shares, p, v, jain, cell(strings.TrimPrefix(witness(r), "; ")))
	}
	fmt.Fprintln(w)
}
