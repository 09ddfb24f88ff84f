package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// groupWidth is the width of one endpoint's group of bars, in endpoint
// slots.
const groupWidth = 0.84

// bar is one bar of a grouped chart: its centre, height, colour, label.
type bar struct {
	x, y, w float64
	fill    color.RGBA
	edge    color.RGBA
	label   string
}

// FairnessGrouped plots the fairness runs of one service across
// dataplanes: per endpoint a group of bars, one pair per dataplane: the
// share the servers counted (solid) and, beside it, the share the kernel's
// own counters give (light), each labelled with its value; the expected
// share is dashed. In keep-alive mode the servers count requests and the
// kernel connections, and the legend says so. Runs that expect their
// traffic dropped are drawn as such: the title says "dropped, as the rules
// promise" when no endpoint served anything.
func FairnessGrouped(runs []results.FairnessRun) (*gplot.Plot, error) {
	if len(runs) == 0 || len(runs[0].Endpoints) == 0 {
		return nil, fmt.Errorf("grouped fairness chart: %w", ErrNoData)
	}
	eps := runs[0].Endpoints
	p := newPlot(groupedTitle(runs), "endpoint", "share")
	p.Add(horizontalGrid())
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Dataplane
	}
	bars := groupedBars(runs, names)
	if err := drawBars(p, bars); err != nil {
		return nil, err
	}
	for i, r := range runs {
		c := colorOf(r.Dataplane, names)
		p.Legend.Add(fmt.Sprintf("%s: servers (%s)", r.Dataplane, servedWhat(r)), swatch(c, c))
		if i == len(runs)-1 && hasKernel(runs) {
			grey := color.RGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xFF}
			p.Legend.Add("light: the kernel's own counters of new connections, per dataplane", swatch(tint(grey), grey))
		}
	}
	if !allDropped(runs) {
		if err := addExpected(p, eps); err != nil {
			return nil, fmt.Errorf("grouped fairness chart: %w", err)
		}
	}
	nameEndpoints(p, eps)
	p.Y.Min = 0
	p.Y.Max = math.Min(1, math.Max(highestBar(bars), highestShare(eps))*1.15)
	p.Y.Tick.Marker = percentTicks{}
	p.Legend.Top = true
	entries := len(runs) + 1
	if hasKernel(runs) {
		entries++
	}
	keepLegendOffData(p, entries, p.Y.Max, 0, Height)
	p.Y.Max = math.Min(p.Y.Max, 1.35)
	return p, nil
}

// groupedBars lays out the bars: per endpoint, per dataplane, the servers'
// bar and (when the kernel counted) the kernel's.
func groupedBars(runs []results.FairnessRun, names []string) []bar {
	perRun := 1
	if hasKernel(runs) {
		perRun = 2
	}
	slots := len(runs) * perRun
	w := groupWidth / float64(slots)
	var out []bar
	for ei := range runs[0].Endpoints {
		for ri, r := range runs {
			if ei >= len(r.Endpoints) {
				continue
			}
			c := colorOf(r.Dataplane, names)
			x := float64(ei) - groupWidth/2 + w*(float64(ri*perRun)+0.5)
			e := r.Endpoints[ei]
			out = append(out, bar{x: x, y: e.Share, w: w, fill: c, edge: c, label: shareLabel(e.Share, e.Count)})
			if perRun == 2 {
				ks := kernelShare(r, ei)
				out = append(out, bar{x: x + w, y: ks, w: w, fill: tint(c), edge: c, label: shareLabel(ks, e.DNAT)})
			}
		}
	}
	return out
}

// drawBars adds the bars and their value labels (turned upright when the
// bars are narrow).
func drawBars(p *gplot.Plot, bars []bar) error {
	var xys plotter.XYs
	var labels []string
	for _, b := range bars {
		half := b.w * 0.45
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b.x - half, Y: 0}, {X: b.x + half, Y: 0}, {X: b.x + half, Y: b.y}, {X: b.x - half, Y: b.y}})
		if err != nil {
			return err
		}
		poly.Color = b.fill
		poly.LineStyle = draw.LineStyle{Color: b.edge, Width: vg.Points(0.8)}
		p.Add(poly)
		xys = append(xys, plotter.XY{X: b.x, Y: b.y})
		labels = append(labels, b.label)
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		sans(&l.TextStyle[i].Font, 8)
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YBottom
		if len(bars) > 8 {
			l.TextStyle[i].Rotation = math.Pi / 2
			l.TextStyle[i].XAlign = draw.XLeft
			l.TextStyle[i].YAlign = draw.YCenter
		}
	}
	l.Offset = vg.Point{Y: vg.Points(5)}
	p.Add(l)
	return nil
}

// swatch is a legend thumbnail of a filled bar.
func swatch(fill, edge color.RGBA) gplot.Thumbnailer {
	poly, _ := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}})
	poly.Color = fill
	poly.LineStyle = draw.LineStyle{Color: edge, Width: vg.Points(0.8)}
	return poly
}

// shareLabel is "50.7%", with the count when it fits: "50.7% (10,135)".
func shareLabel(share float64, count uint64) string {
	return fmt.Sprintf("%.1f%% (%s)", 100*share, metric.Thousands(float64(count)))
}

// kernelShare is the endpoint's share of the kernel's counters.
func kernelShare(r results.FairnessRun, i int) float64 {
	var total uint64
	for _, e := range r.Endpoints {
		total += e.DNAT
	}
	if total == 0 {
		return 0
	}
	return float64(r.Endpoints[i].DNAT) / float64(total)
}

func hasKernel(runs []results.FairnessRun) bool {
	for _, r := range runs {
		if r.KernelCounter != "" {
			return true
		}
	}
	return false
}

func allDropped(runs []results.FairnessRun) bool {
	for _, r := range runs {
		if !r.ExpectDropped {
			return false
		}
	}
	return true
}

// servedWhat names what the servers counted.
func servedWhat(r results.FairnessRun) string {
	if r.Mode == "keepalive" {
		return "requests"
	}
	return "connections"
}

// groupedTitle names the service, the load and the verdicts.
func groupedTitle(runs []results.FairnessRun) string {
	r := runs[0]
	head := fmt.Sprintf("%s: share per endpoint across dataplanes (%s each)", r.Service, loadOf(r))
	if allDropped(runs) {
		return head + "\n" + droppedTitle(runs)
	}
	if len(runs) == 1 {
		return head + "\n" + testLine(runs[0])
	}
	var off []string
	for _, r := range runs {
		if r.ChiSquareP < 0.01 {
			off = append(off, r.Dataplane)
		}
	}
	if len(off) == 0 {
		return head + "\nevery dataplane consistent with the expected split (chi-square p ≥ 0.01)"
	}
	return head + "\nNOT the expected split (chi-square p < 0.01): " + strings.Join(off, ", ")
}

// droppedTitle: "dropped, as the rules promise: no endpoint served any of
// the 1,000 connections", or says what was served.
func droppedTitle(runs []results.FairnessRun) string {
	var served uint64
	conns := 0
	for _, r := range runs {
		conns += r.Connections
		for _, e := range r.Endpoints {
			served += e.Count
		}
	}
	if served == 0 {
		return fmt.Sprintf("dropped, as the rules promise: no endpoint served any of %s connections", metric.Thousands(float64(conns)))
	}
	return fmt.Sprintf("NOT dropped, though the rules promise it: endpoints served %s", metric.Thousands(float64(served)))
}

func highestBar(bars []bar) float64 {
	hi := 0.0
	for _, b := range bars {
		hi = math.Max(hi, b.y)
	}
	if hi == 0 {
		return 1
	}
	return hi
}

// percentTicks labels a share axis in percent, every 10% (5% below 40%,
// 20% above 100%... shares stop at 100%).
type percentTicks struct{}

// Ticks implements gplot.Ticker.
func (percentTicks) Ticks(lo, hi float64) []gplot.Tick {
	step := 0.1
	if hi-lo < 0.4 {
		step = 0.05
	}
	var ticks []gplot.Tick
	for v := math.Ceil(lo/step) * step; v <= math.Min(hi, 1)+1e-9; v += step {
		ticks = append(ticks, gplot.Tick{Value: v, Label: fmt.Sprintf("%.0f%%", 100*v)})
	}
	return ticks
}
