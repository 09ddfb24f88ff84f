package plot

import (
	"fmt"
	"slices"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// logRangeRatio is the max/min ratio from which a plot's y axis is
// logarithmic.
const logRangeRatio = 100

// SyncVsServices plots the time of a full sync (solid) and of an
// incremental sync (dotted, ring glyphs) in seconds against services, one
// colour per dataplane. Sync time does not depend on the target position,
// so positions are pooled (median). The y axis is logarithmic when the
// values span more than a factor of 100. The legend gives the full sync's
// fitted slope when the summary has one.
func SyncVsServices(s *results.Summary, records []results.Record) (*gplot.Plot, error) {
	full, err := sweepMetric(metric.SyncFull)
	if err != nil {
		return nil, err
	}
	incremental, err := sweepMetric(metric.SyncIncremental)
	if err != nil {
		return nil, err
	}
	fulls := collect(s, records, full, "", true)
	incrementals := collect(s, records, incremental, "", true)
	if len(fulls)+len(incrementals) == 0 {
		return nil, fmt.Errorf("sync vs services: %w", ErrNoData)
	}
	p := newPlot("Rule sync time vs services", servicesLabel, "sync time (s)")
	p.Add(fullGrid())
	for _, sr := range fulls {
		name := sr.dataplane + " full"
		if fit := firstFit(s, sr.dataplane, full.Name); fit != nil {
			name += ": " + metric.FormatSlope(*fit)
		}
		if err := addSeries(p, sr, name, medianStyle(sr)); err != nil {
			return nil, err
		}
	}
	for _, sr := range incrementals {
		if err := addSeries(p, sr, sr.dataplane+" incremental", incrementalStyle(sr)); err != nil {
			return nil, err
		}
	}
	all := append(slices.Clone(fulls), incrementals...)
	if spansDecades(all) {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Min = minValue(all)
	}
	finishSweepPlot(p, false, all)
	if spansDecades(all) {
		p.Y.Tick.Marker = gplot.LogTicks{Prec: -1}
		p.Y.Min = minValue(all)
	}
	return p, nil
}

// incrementalStyle draws incremental syncs dotted, with ring glyphs.
func incrementalStyle(sr series) seriesStyle {
	st := medianStyle(sr)
	st.line.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	st.glyph.Shape = draw.RingGlyph{}
	return st
}

// firstFit returns the fit of metric for a dataplane at the first position
// (in position order) that has one.
func firstFit(s *results.Summary, dataplane, name string) *results.Fit {
	var best *results.Fit
	if s == nil {
		return nil
	}
	for i, f := range s.Fits {
		if f.Dataplane != dataplane || f.Metric != name {
			continue
		}
		if best == nil || metric.ComparePositions(f.Position, best.Position) < 0 {
			best = &s.Fits[i]
		}
	}
	return best
}

// spansDecades says the series' values span more than logRangeRatio.
func spansDecades(all []series) bool {
	lo, hi := minValue(all), maxValue(all)
	return lo > 0 && hi/lo > logRangeRatio
}

func minValue(all []series) float64 {
	lo := 0.0
	for _, sr := range all {
		for _, xy := range append(slices.Clone(sr.medians), sr.reps...) {
			if lo == 0 || xy.Y < lo {
				lo = xy.Y
			}
		}
	}
	return lo
}

func maxValue(all []series) float64 {
	hi := 0.0
	for _, sr := range all {
		for _, xy := range append(slices.Clone(sr.medians), sr.reps...) {
			hi = max(hi, xy.Y)
		}
	}
	return hi
}
