package plot

import (
	"errors"
	"fmt"
	"image/color"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ErrNoData says a plot has nothing to show: no sweep point of that metric
// (and position) holds a measured value.
var ErrNoData = errors.New("no measured values to plot")

// servicesLabel is the x axis of every sweep plot.
const servicesLabel = "services"

// LatencyVsServices plots a latency metric ("p50_us" when empty; also
// "p90_us", "p99_us", "p999_us", "mean_us") against the number of services,
// one colour per dataplane. position selects one target position; "" draws
// every position, told apart by glyph. Medians are joined by lines, each
// repetition in records is a faint dot, and the summary's fit is dashed and
// named in the legend with its slope.
func LatencyVsServices(s *results.Summary, records []results.Record, name, position string) (*gplot.Plot, error) {
	if name == "" {
		name = metric.P50
	}
	return MetricVsServices(s, records, name, position)
}

// CPUVsServices plots CPU time per new connection against services, like
// LatencyVsServices.
func CPUVsServices(s *results.Summary, records []results.Record, position string) (*gplot.Plot, error) {
	return MetricVsServices(s, records, metric.CPUPerConn, position)
}

// RulesVsServices plots the number of rules against services, one line per
// dataplane (the rule set does not depend on the target position).
func RulesVsServices(s *results.Summary, records []results.Record) (*gplot.Plot, error) {
	m, err := sweepMetric(metric.Rules)
	if err != nil {
		return nil, err
	}
	all := collect(s, records, m, "", true)
	if len(all) == 0 {
		return nil, fmt.Errorf("rules vs services: %w", ErrNoData)
	}
	p := newPlot("Rules vs services", servicesLabel, m.Label)
	p.Add(fullGrid())
	names := make([]string, len(all))
	for i, sr := range all {
		names[i] = sr.dataplane
	}
	for i, name := range overlapNames(all, names) {
		if err := addSeries(p, all[i], name, medianStyle(all[i])); err != nil {
			return nil, err
		}
	}
	finishSweepPlot(p, false, all)
	return p, nil
}

// MetricVsServices plots any metric (see sim/metric) against services,
// one series per dataplane and position, as LatencyVsServices describes.
func MetricVsServices(s *results.Summary, records []results.Record, name, position string) (*gplot.Plot, error) {
	m, err := sweepMetric(name)
	if err != nil {
		return nil, err
	}
	all := collect(s, records, m, position, false)
	if len(all) == 0 {
		return nil, fmt.Errorf("%s vs services at position %q: %w", name, position, ErrNoData)
	}
	p := newPlot(titleOf(m, position), servicesLabel, m.Label)
	p.Add(fullGrid())
	names := make([]string, len(all))
	for i, sr := range all {
		names[i] = seriesName(sr, position == "")
	}
	for i, name := range overlapNames(all, names) {
		if err := addSeries(p, all[i], name, medianStyle(all[i])); err != nil {
			return nil, err
		}
		if err := addFitLine(p, all[i], m); err != nil {
			return nil, err
		}
	}
	finishSweepPlot(p, hasFit(all), all)
	return p, nil
}

func titleOf(m metric.Metric, position string) string {
	if position == "" {
		return m.Label + " vs services"
	}
	return fmt.Sprintf("%s vs services (target %s in the service list)", m.Label, position)
}

// seriesName is the legend text: dataplane, position when several are
// drawn, and the fitted slope.
func seriesName(sr series, withPosition bool) string {
	name := sr.dataplane
	if withPosition && sr.position != "" {
		name += " " + sr.position
	}
	if sr.fit != nil {
		name += ": " + metric.FormatSlope(*sr.fit)
	}
	return name
}

// seriesStyle is how a series' medians are drawn.
type seriesStyle struct {
	line  draw.LineStyle
	glyph draw.GlyphStyle
}

// medianStyle is the default: a solid line in the dataplane's colour and
// the position's glyph.
func medianStyle(sr series) seriesStyle {
	c := colorOf(sr.dataplane, sr.all)
	return seriesStyle{
		line:  draw.LineStyle{Color: c, Width: vg.Points(1.5)},
		glyph: draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: glyphOf(sr.position)},
	}
}

// addSeries draws the repetitions as faint dots, then the medians joined
// by a line, and names them in the legend.
func addSeries(p *gplot.Plot, sr series, name string, style seriesStyle) error {
	if len(sr.reps) > 0 {
		dots, err := plotter.NewScatter(sr.reps)
		if err != nil {
			return fmt.Errorf("repetitions of %s: %w", name, err)
		}
		dots.GlyphStyle = repetitionStyle(colorOf(sr.dataplane, sr.all))
		p.Add(dots)
	}
	line, points, err := plotter.NewLinePoints(sr.medians)
	if err != nil {
		return fmt.Errorf("medians of %s: %w", name, err)
	}
	line.LineStyle = style.line
	points.GlyphStyle = style.glyph
	p.Add(line, points)
	p.Legend.Add(name, line, points)
	return nil
}

// addFitLine draws intercept + slope·N, dashed, over the series' service
// range, clipped where it would go below zero (no latency or CPU time is
// negative; a line below the axis is the fit's artefact).
func addFitLine(p *gplot.Plot, sr series, m metric.Metric) error {
	if sr.fit == nil {
		return nil
	}
	lo, hi := sr.medians[0].X, sr.medians[len(sr.medians)-1].X
	ylo, yhi := metric.FitValue(m, *sr.fit, lo), metric.FitValue(m, *sr.fit, hi)
	switch {
	case ylo < 0 && yhi < 0:
		return nil
	case ylo < 0:
		lo, ylo = lo+(hi-lo)*(-ylo)/(yhi-ylo), 0
	case yhi < 0:
		hi, yhi = lo+(hi-lo)*ylo/(ylo-yhi), 0
	}
	fitted, err := plotter.NewLine(plotter.XYs{{X: lo, Y: ylo}, {X: hi, Y: yhi}})
	if err != nil {
		return fmt.Errorf("fit of %s %s: %w", sr.dataplane, sr.position, err)
	}
	fitted.LineStyle = fitStyle(shade(colorOf(sr.dataplane, sr.all)))
	p.Add(fitted)
	return nil
}

func hasFit(all []series) bool {
	for _, sr := range all {
		if sr.fit != nil {
			return true
		}
	}
	return false
}

// finishSweepPlot places the legend, explains the marks, starts the y
// axis at zero so that slopes compare honestly, labels the axes with
// thousands separators and raises the y axis so the legend is off the data.
func finishSweepPlot(p *gplot.Plot, withFit bool, all []series) {
	grey := color.Gray{Y: 0x60}
	entries := len(all)
	if withFit {
		p.Legend.Add("least-squares fit", &plotter.Line{LineStyle: fitStyle(grey)})
		entries++
	}
	if hasReps(all) {
		p.Legend.Add("one repetition", &plotter.Scatter{GlyphStyle: repetitionStyle(color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0xFF})})
		entries++
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(8)
	p.Legend.YOffs = -vg.Points(6)
	p.X.Min = min(p.X.Min, 0)
	p.Y.Min = min(p.Y.Min, 0)
	p.X.Tick.Marker = readableTicks{}
	p.Y.Tick.Marker = readableTicks{}
	keepLegendOffData(p, entries, maxValue(all), minValue(all), Height)
}

// fitStyle is the dashed line of a fit.
func fitStyle(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: fitDashes}
}

// repetitionStyle is the small faint dot of one repetition.
func repetitionStyle(c color.RGBA) draw.GlyphStyle {
	return draw.GlyphStyle{Color: faint(c), Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
}

func hasReps(all []series) bool {
	for _, sr := range all {
		if len(sr.reps) > 0 {
			return true
		}
	}
	return false
}

// sweepMetric returns the catalog's metric called name if sweep points
// carry it.
func sweepMetric(name string) (metric.Metric, error) {
	m, err := metric.Lookup(name)
	if err != nil || m.Point == nil {
		var names []string
		for _, m := range metric.Sweep() {
			names = append(names, m.Name)
		}
		return metric.Metric{}, fmt.Errorf("unknown sweep metric %q (use one of %s)", name, strings.Join(names, ", "))
	}
	return m, nil
}
