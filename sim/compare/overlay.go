package compare

import (
	"fmt"
	"image/color"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/plot"
	"github.com/svclab/svclab/sim/stats"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// overlayColor is a dataplane's colour, as sim/plot draws it
// (sim/dataplane's Colour); dataplanes it does not know are black.
func overlayColor(name string) color.RGBA {
	if d, ok := dataplane.Lookup(name); ok {
		return d.Colour
	}
	return color.RGBA{A: 0xFF}
}

// overlaySide is one run's part of an overlay plot.
type overlaySide struct {
	name       string // "base" or "new"
	samples    samples
	dataplanes []string // the compared dataplanes of this side
	dashed     bool
}

// overlayPlot draws a sweep metric against services at one target position
// for both runs: base dashed with open glyphs, new solid with filled ones,
// one colour per dataplane; each repetition is a faint dot. It returns
// plot.ErrNoData when neither run has a value.
func overlayPlot(res *Result, metricName, position string) (*gplot.Plot, error) {
	m, err := metric.Lookup(metricName)
	if err != nil {
		return nil, err
	}
	p := gplot.New()
	p.Title.Text = fmt.Sprintf("%s vs services, target %s: base dashed, new solid", m.Label, position)
	p.X.Label.Text, p.Y.Label.Text = "services", m.Label
	styleText(p)
	p.Add(plotter.NewGrid())
	drawn := 0
	for _, side := range overlaySides(res) {
		for _, dp := range side.dataplanes {
			n, err := addOverlaySeries(p, side, dp, metricName, position)
			if err != nil {
				return nil, err
			}
			drawn += n
		}
	}
	if drawn == 0 {
		return nil, fmt.Errorf("%s at position %s: %w", metricName, position, plot.ErrNoData)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(6)
	p.X.Min, p.Y.Min = min(p.X.Min, 0), min(p.Y.Min, 0)
	return p, nil
}

// overlaySides are the two runs with the dataplanes their rows compare.
func overlaySides(res *Result) []overlaySide {
	base := overlaySide{name: "base", samples: collect(res.Base.Records), dashed: true}
	new := overlaySide{name: "new", samples: collect(res.New.Records)}
	for _, r := range res.Rows {
		if !slices.Contains(base.dataplanes, r.Base.Dataplane) {
			base.dataplanes = append(base.dataplanes, r.Base.Dataplane)
		}
		if !slices.Contains(new.dataplanes, r.New.Dataplane) {
			new.dataplanes = append(new.dataplanes, r.New.Dataplane)
		}
	}
	return []overlaySide{base, new}
}

// addOverlaySeries draws one side's dataplane and returns how many medians
// it drew.
func addOverlaySeries(p *gplot.Plot, side overlaySide, dataplane, metric, position string) (int, error) {
	byServices := map[int][]float64{}
	for _, k := range side.samples.keys {
		if k.Dataplane == dataplane && k.Position == position && !isFairness(k) {
			byServices[k.Services] = append(byServices[k.Services], side.samples.values[k][metric]...)
		}
	}
	var medians, reps plotter.XYs
	for _, n := range sortedKeysOf(byServices) {
		if vs := byServices[n]; len(vs) > 0 {
			medians = append(medians, plotter.XY{X: float64(n), Y: stats.Median(vs)})
			for _, v := range vs {
				reps = append(reps, plotter.XY{X: float64(n), Y: v})
			}
		}
	}
	if len(medians) == 0 {
		return 0, nil
	}
	c := overlayColor(dataplane)
	dots, err := plotter.NewScatter(reps)
	if err != nil {
		return 0, fmt.Errorf("%s %s repetitions: %w", side.name, dataplane, err)
	}
	dots.GlyphStyle = draw.GlyphStyle{Color: faint(c), Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
	line, points, err := plotter.NewLinePoints(medians)
	if err != nil {
		return 0, fmt.Errorf("%s %s medians: %w", side.name, dataplane, err)
	}
	line.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.5)}
	points.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	if side.dashed {
		line.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		points.GlyphStyle.Shape = draw.RingGlyph{}
	}
	p.Add(dots, line, points)
	p.Legend.Add(side.name+" "+dataplane, line, points)
	return len(medians), nil
}

func sortedKeysOf(m map[int][]float64) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// faint is c at low opacity (premultiplied).
func faint(c color.RGBA) color.RGBA {
	const alpha = 0x55
	scale := func(v uint8) uint8 { return uint8(uint16(v) * alpha / 0xFF) }
	return color.RGBA{R: scale(c.R), G: scale(c.G), B: scale(c.B), A: alpha}
}

// styleText sets sans-serif text as sim/plot does.
func styleText(p *gplot.Plot) {
	for _, f := range []struct {
		font *font.Font
		size vg.Length
	}{{&p.Title.TextStyle.Font, 13}, {&p.X.Label.TextStyle.Font, 11}, {&p.Y.Label.TextStyle.Font, 11},
		{&p.X.Tick.Label.Font, 9}, {&p.Y.Tick.Label.Font, 9}, {&p.Legend.TextStyle.Font, 9}} {
		f.font.Variant = "Sans"
		f.font.Size = f.size
	}
	p.Title.Padding = vg.Points(6)
}
