package plot

import (
	"fmt"
	"image/color"

	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// outcomeSeries are the outcomes a timeline plot draws, with their colours.
var outcomeSeries = []struct {
	name  string
	color color.RGBA
	of    func(results.Outcome) int
}{
	{"served", color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, func(o results.Outcome) int { return o.Served }},
	{"refused", color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, func(o results.Outcome) int { return o.Refused }},
	{"timed out", color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, func(o results.Outcome) int { return o.TimedOut }},
	{"lost", color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}, func(o results.Outcome) int { return o.Lost }},
	{"blackholed", color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, func(o results.Outcome) int { return o.Blackholed }},
	{"misdelivered", color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, func(o results.Outcome) int { return o.Misdelivered }},
}

// Timeline plots a timeline run's outcomes per second (every traffic
// generator together), one line per outcome that occurred, with each event
// marked by a vertical grey line.
func Timeline(run results.TimelineRun) (*gplot.Plot, error) {
	if len(run.Seconds) == 0 {
		return nil, fmt.Errorf("timeline %s: %w", run.Dataplane, ErrNoData)
	}
	title := fmt.Sprintf("Outcomes per second, %s, engine %s %s", run.Dataplane, run.Engine, run.KubeProxyVersion)
	p := newPlot(title, "time (s)", "connections or datagrams per second")
	p.Add(horizontalGrid())
	top := 1.0
	for _, s := range outcomeSeries {
		xys, any := make(plotter.XYs, len(run.Seconds)), false
		for i, sec := range run.Seconds {
			n := 0
			for _, o := range sec.Traffic {
				n += s.of(o)
			}
			xys[i] = plotter.XY{X: float64(sec.Second) + 0.5, Y: float64(n)}
			any = any || n > 0
			top = max(top, float64(n))
		}
		if !any {
			continue
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = s.color, vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(s.name, line)
	}
	for _, e := range run.Events {
		mark, err := plotter.NewLine(plotter.XYs{{X: e.AtS, Y: 0}, {X: e.AtS, Y: top * 1.05}})
		if err != nil {
			return nil, err
		}
		mark.Color, mark.Dashes = color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0xff}, []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(mark)
	}
	p.Legend.Top = true
	p.X.Min, p.Y.Min = 0, 0
	return p, nil
}
