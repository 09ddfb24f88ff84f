package plot

import (
	"image/color"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// dataplaneColors is the fixed palette (Okabe-Ito, colour-blind safe), in
// the order the legend lists dataplanes.
var dataplaneColors = []struct {
	name  string
	color color.RGBA
}{
	{"iptables-legacy", color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}}, // vermillion
	{"iptables-nft", color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}},    // blue
	{"nftables", color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}},        // green
	{"ipvs", color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}},            // purple
}

// extraColors colour dataplanes the palette does not name, in name order.
var extraColors = []color.RGBA{
	{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF},
	{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF},
	{R: 0x00, G: 0x00, B: 0x00, A: 0xFF},
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

// colorOf returns a dataplane's colour; unknown dataplanes get the extra
// colours in the order of all names seen.
func colorOf(dataplane string, all []string) color.RGBA {
	for _, c := range dataplaneColors {
		if c.name == dataplane {
			return c.color
		}
	}
	var unknown []string
	for _, name := range all {
		if rankOf(name) == len(dataplaneColors) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	i := max(slices.Index(unknown, dataplane), 0)
	return extraColors[i%len(extraColors)]
}

// rankOf orders dataplanes as the palette lists them; unknown ones last.
func rankOf(dataplane string) int {
	for i, c := range dataplaneColors {
		if c.name == dataplane {
			return i
		}
	}
	return len(dataplaneColors)
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
