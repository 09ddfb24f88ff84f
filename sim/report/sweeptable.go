package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
)

// SweepTable writes a sweep's points (medians over repetitions) and then
// its fits (slope in ns per added service with its 95% interval, intercept
// in µs, R²). A "-" is a value that was not measured.
func SweepTable(w io.Writer, s *results.Summary) error {
	fmt.Fprintf(w, "\nsweep points (medians over repetitions)\n")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataplane\tservices\tposition\treps\tp50 µs\tp90 µs\tp99 µs\tcpu µs/conn\tconn/s\tsync full\tsync incr\trules\tbytes\terrors\t")
	for _, p := range s.Points {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n",
			p.Dataplane, p.Services, p.Position, p.Repetitions,
			measured(p.P50us), measured(p.P90us), measured(p.P99us), measured(p.CPUusPerConn), rate(p.ConnPerSec),
			seconds(p.SyncFullS), seconds(p.SyncIncrementalS), count(p.Rules), count(p.Bytes), p.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := walkProbeTable(w, s.WalkProbes); err != nil {
		return err
	}
	if err := syncProbeTable(w, s.SyncProbes); err != nil {
		return err
	}
	return fitsTable(w, s.Fits)
}

// syncProbeTable writes a sweep's sync probes (sweep.syncProbe), if any:
// the full ruleset's load time alone, at sizes the points do not reach,
// and a map lookup's uniform p50 measured after it; a lookup probe
// (sweep.lookupProbe) is a row whose syncs were not timed.
func syncProbeTable(w io.Writer, probes []results.Point) error {
	return probeTable(w, "sync probes (the full ruleset of N services loaded and timed alone, then, for a map lookup, connections to uniformly random services; a lookup probe's load, once, is not timed; medians over repetitions)",
		"dataplane\tservices\treps\tsync full\tsync CPU\trules\tbytes\tkernel memory\tuniform p50 µs", probes, func(p results.Point) string {
			return fmt.Sprintf("%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s", p.Dataplane, p.Services, p.Repetitions,
				seconds(p.SyncFullS), seconds(p.SyncFullCPUS), count(p.Rules), count(p.Bytes), count(int(p.KernelMemBytes)), measured(p.P50us))
		})
}

// walkProbeTable writes a sweep's walk probes (sweep.walkProbe), if any:
// the p50 after a walk of every KUBE-SERVICES rule of that many services,
// with the spread of the repetitions.
func walkProbeTable(w io.Writer, probes []results.Point) error {
	return probeTable(w, "walk probes (every KUBE-SERVICES rule of N services, only the targets' chains; medians over repetitions)",
		"dataplane\tservices\tposition\treps\tp50 µs\tsd µs\tp99 µs\trules\terrors", probes, func(p results.Point) string {
			return fmt.Sprintf("%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\t%d", p.Dataplane, p.Services, p.Position, p.Repetitions,
				measured(p.P50us), measured(p.Extra[results.ExtraP50SD]), measured(p.P99us), count(p.Rules), p.Errors)
		})
}

// probeTable writes one kind of probe records under its title, a row each
// (tab-separated cells), if there are any.
func probeTable(w io.Writer, title, header string, probes []results.Point, row func(results.Point) string) error {
	if len(probes) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n", title)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header+"\t")
	for _, p := range probes {
		fmt.Fprintln(tw, row(p)+"\t")
	}
	return tw.Flush()
}

func fitsTable(w io.Writer, fits []results.Fit) error {
	if len(fits) == 0 {
		fmt.Fprintf(w, "no fits (a fit needs at least %d service counts)\n", metric.MinFitServiceCounts)
		return nil
	}
	fmt.Fprintf(w, "\nfits against services (slope in ns per added service, intercept in µs, whatever the metric's unit)\n")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataplane\tposition\tmetric\tslope ns/service\t95% interval\tintercept µs\tR²\tpoints\tns/rule\t")
	for _, f := range fits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%d\t%s\t\n",
			f.Dataplane, f.Position, f.Metric, metric.FormatNumber(f.SlopeNsPerService), interval(f),
			metric.FormatNumber(f.InterceptUs), f.R2, f.N, measured(f.NsPerRule))
	}
	return tw.Flush()
}

// measured formats a value with metric.FormatNumber, or "-" for zero.
func measured(v float64) string {
	if v == 0 {
		return "-"
	}
	return metric.FormatNumber(v)
}

// rate formats a per-second rate without decimals, or "-" for zero.
func rate(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// seconds formats a duration in seconds in a unit that reads (µs, ms, s),
// or "-".
func seconds(v float64) string {
	if v == 0 {
		return "-"
	}
	return metric.FormatSeconds(v)
}

// count formats a count, or "-" for zero.
func count(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// interval formats a fit's 95% slope interval.
func interval(f results.Fit) string {
	return fmt.Sprintf("[%s, %s]", metric.FormatNumber(f.SlopeCI95[0]), metric.FormatNumber(f.SlopeCI95[1]))
}
