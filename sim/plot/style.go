package plot

import (
	"image/color"
	"slices"

	"github.com/svclab/svclab/sim/dataplane"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// extraColors colour dataplanes sim/dataplane does not know (from an old
// results file), in name order; none is a registered dataplane's colour.
var extraColors = []color.RGBA{
	{R: 0x00, G: 0x00, B: 0x00, A: 0xFF},
	{R: 0x99, G: 0x99, B: 0x99, A: 0xFF},
	{R: 0xF0, G: 0xE4, B: 0x42, A: 0xFF},
}

// positionGlyphs tells positions apart when one plot shows several; ""
// (positions pooled) is a circle.
var positionGlyphs = map[string]draw.GlyphDrawer{
	"":        draw.CircleGlyph{},
	"first":   draw.CircleGlyph{},
	"middle":  draw.PyramidGlyph{},
	"last":    draw.BoxGlyph{},
	"uniform": draw.CrossGlyph{},
}

// fitDashes is the dash pattern of fitted lines.
var fitDashes = []vg.Length{vg.Points(5), vg.Points(3)}

// colorOf returns a dataplane's colour (sim/dataplane's Colour); unknown
// dataplanes get the extra colours in the order of all names seen.
func colorOf(name string, all []string) color.RGBA {
	if d, ok := dataplane.Lookup(name); ok {
		return d.Colour
	}
	var unknown []string
	for _, n := range all {
		if _, ok := dataplane.Lookup(n); !ok {
			unknown = append(unknown, n)
		}
	}
	slices.Sort(unknown)
	i := max(slices.Index(unknown, name), 0)
	return extraColors[i%len(extraColors)]
}

// glyphOf returns the glyph of a target position.
func glyphOf(position string) draw.GlyphDrawer {
	if g, ok := positionGlyphs[position]; ok {
		return g
	}
	return draw.RingGlyph{}
}

// faint returns c with low opacity (premultiplied, as color.RGBA wants).
func faint(c color.RGBA) color.RGBA {
	const alpha = 0x55
	return color.RGBA{
		R: uint8(uint16(c.R) * alpha / 0xFF),
		G: uint8(uint16(c.G) * alpha / 0xFF),
		B: uint8(uint16(c.B) * alpha / 0xFF),
		A: alpha,
	}
}

// tint returns c mixed with white, opaque: a light fill.
func tint(c color.RGBA) color.RGBA {
	const keep = 0x50
	mix := func(v uint8) uint8 { return uint8((uint16(v)*keep + 0xFF*(0xFF-keep)) / 0xFF) }
	return color.RGBA{R: mix(c.R), G: mix(c.G), B: mix(c.B), A: 0xFF}
}

// shade returns c darkened, so that a dashed fit stays visible on top of
// the solid line of the same colour.
func shade(c color.RGBA) color.RGBA {
	const keep = 0x99
	dark := func(v uint8) uint8 { return uint8(uint16(v) * keep / 0xFF) }
	return color.RGBA{R: dark(c.R), G: dark(c.G), B: dark(c.B), A: 0xFF}
}

// newPlot returns a plot with sans-serif text and the given labels.
func newPlot(title, xLabel, yLabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	sans(&p.Title.TextStyle.Font, 13)
	sans(&p.X.Label.TextStyle.Font, 11)
	sans(&p.Y.Label.TextStyle.Font, 11)
	sans(&p.X.Tick.Label.Font, 9)
	sans(&p.Y.Tick.Label.Font, 9)
	sans(&p.Legend.TextStyle.Font, 9)
	p.Title.Padding = vg.Points(6)
	p.Legend.Padding = vg.Points(2)
	return p
}

// fullGrid is a light grid behind sweep plots.
func fullGrid() *plotter.Grid { return plotter.NewGrid() }

// horizontalGrid is a grid without vertical lines, for bar charts.
func horizontalGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	return g
}

func sans(f *font.Font, size vg.Length) {
	f.Variant = "Sans"
	f.Size = size
}
