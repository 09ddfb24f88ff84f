package report

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/plot"
	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
)

// PlotsDir is the directory, inside a run directory, that holds the plots.
const PlotsDir = "plots"

// plotFile is one saved plot, with paths relative to the run directory.
type plotFile struct {
	caption string
	png     string
	svg     string
}

// plotSpec is a plot to draw and the name to save it under.
type plotSpec struct {
	name    string
	caption string
	make    func() (*gplot.Plot, error)
}

// sweepPlots lists a sweep's plots: p50 and p99 latency and CPU per target
// position, then sync time and rule count.
func sweepPlots(run *Run) []plotSpec {
	s, recs := run.Summary, run.Records
	var specs []plotSpec
	for _, pos := range positions(s.Points) {
		suffix := fileSafe(pos)
		if suffix == "" {
			suffix = "all"
		}
		specs = append(specs,
			plotSpec{"latency-p50-" + suffix, "Connect latency p50, target " + pos,
				func() (*gplot.Plot, error) { return plot.LatencyVsServices(s, recs, metric.P50, pos) }},
			plotSpec{"latency-p99-" + suffix, "Connect latency p99, target " + pos,
				func() (*gplot.Plot, error) { return plot.LatencyVsServices(s, recs, metric.P99, pos) }},
			plotSpec{"cpu-" + suffix, "CPU time per new connection, target " + pos,
				func() (*gplot.Plot, error) { return plot.CPUVsServices(s, recs, pos) }})
	}
	return append(specs,
		plotSpec{"sync", "Full and incremental sync time",
			func() (*gplot.Plot, error) { return plot.SyncVsServices(s, recs) }},
		plotSpec{"rules", "Rules per rule set",
			func() (*gplot.Plot, error) { return plot.RulesVsServices(s, recs) }})
}

// fairnessPlot is the bar chart of the i-th fairness run.
func fairnessPlot(i int, r results.FairnessRun) plotSpec {
	return plotSpec{
		name:    fmt.Sprintf("fairness-%02d-%s", i+1, fileSafe(r.Dataplane)),
		caption: fmt.Sprintf("Endpoint shares, %s, %s", r.Dataplane, r.Service),
		make:    func() (*gplot.Plot, error) { return plot.FairnessBars(r) },
	}
}

// savePlot draws spec and saves it under dir/plots. A plot without data
// is skipped (ok false).
func savePlot(dir string, spec plotSpec) (pf plotFile, paths []string, ok bool, err error) {
	p, err := spec.make()
	if errors.Is(err, plot.ErrNoData) {
		return plotFile{}, nil, false, nil
	}
	if err != nil {
		return plotFile{}, nil, false, fmt.Errorf("plot %s: %w", spec.name, err)
	}
	paths, err = plot.Save(p, filepath.Join(dir, PlotsDir, spec.name))
	if err != nil {
		return plotFile{}, paths, false, err
	}
	rel := PlotsDir + "/" + spec.name
	return plotFile{caption: spec.caption, png: rel + ".png", svg: rel + ".svg"}, paths, true, nil
}

// positions lists the target positions of points in plot order.
func positions(points []results.Point) []string {
	var out []string
	for _, p := range points {
		if !slices.Contains(out, p.Position) {
			out = append(out, p.Position)
		}
	}
	slices.SortFunc(out, metric.ComparePositions)
	return out
}

// fileSafe keeps letters, digits, '-' and '.' and turns the rest into '-'.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '-'
	}, s)
}

// saveOverviewPlots draws, per service of the fairness runs, the grouped
// chart across dataplanes and, where the rules have a statistic cascade,
// the cascade plot.
func saveOverviewPlots(dir string, runs []results.FairnessRun) ([]plotFile, []string, error) {
	var files []plotFile
	var all []string
	for i, group := range byService(runs) {
		service := group[0].Service
		specs := []plotSpec{
			{fmt.Sprintf("fairness-across-%02d", i+1), "Shares across dataplanes, servers and the kernel's counters, " + service,
				func() (*gplot.Plot, error) { return plot.FairnessGrouped(group) }},
			{fmt.Sprintf("cascade-%02d", i+1), "The statistic cascade, rule by rule, " + service,
				func() (*gplot.Plot, error) { return plot.Cascade(group) }},
		}
		for _, spec := range specs {
			pf, paths, ok, err := savePlot(dir, spec)
			all = append(all, paths...)
			if err != nil {
				return files, all, err
			}
			if ok {
				files = append(files, pf)
			}
		}
	}
	return files, all, nil
}

// byService groups fairness runs by service, in first-seen order.
func byService(runs []results.FairnessRun) [][]results.FairnessRun {
	var order []string
	groups := map[string][]results.FairnessRun{}
	for _, r := range runs {
		if _, ok := groups[r.Service]; !ok {
			order = append(order, r.Service)
		}
		groups[r.Service] = append(groups[r.Service], r)
	}
	out := make([][]results.FairnessRun, len(order))
	for i, s := range order {
		out[i] = groups[s]
	}
	return out
}
