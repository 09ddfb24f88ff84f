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

// maxEndpointLabels is the most endpoint names the x axis shows; with more
// endpoints only every k-th is named.
const maxEndpointLabels = 24

// barHalfWidth is half a bar's width in endpoint slots.
const barHalfWidth = 0.35

// FairnessBars plots each endpoint's share of a fairness run as a bar with
// its 95% interval, and the share the rules promise as a dashed line. The
// title names the dataplane, the service and the chi-square p-value.
func FairnessBars(run results.FairnessRun) (*gplot.Plot, error) {
	if len(run.Endpoints) == 0 {
		return nil, fmt.Errorf("fairness bars of %s on %s: %w", run.Service, run.Dataplane, ErrNoData)
	}
	title := fmt.Sprintf("%s, %s: share of %s per endpoint\n%s",
		run.Dataplane, run.Service, loadOf(run), testLine(run))
	if run.ExpectDropped {
		title = fmt.Sprintf("%s, %s\n%s", run.Dataplane, run.Service, droppedTitle([]results.FairnessRun{run}))
	}
	p := newPlot(title, "endpoint", "share")
	p.Add(horizontalGrid())
	c := colorOf(run.Dataplane, []string{run.Dataplane})
	bars, err := shareBars(run.Endpoints, c)
	if err != nil {
		return nil, fmt.Errorf("fairness bars of %s on %s: %w", run.Service, run.Dataplane, err)
	}
	intervals, err := shareIntervals(run.Endpoints)
	if err != nil {
		return nil, fmt.Errorf("fairness intervals of %s on %s: %w", run.Service, run.Dataplane, err)
	}
	p.Add(bars, intervals)
	p.Legend.Add("observed share of "+servedWhat(run)+", error bar: 95% interval", bars)
	if err := addExpected(p, run.Endpoints); err != nil {
		return nil, fmt.Errorf("expected shares of %s on %s: %w", run.Service, run.Dataplane, err)
	}
	nameEndpoints(p, run.Endpoints)
	p.Legend.Top = true
	p.Y.Min = 0
	p.Y.Max = math.Min(1.05, 1.25*highestShare(run.Endpoints))
	p.Y.Tick.Marker = percentTicks{}
	return p, nil
}

// loadOf is "20,000 connections", or "6,000 requests over 24 connections".
func loadOf(r results.FairnessRun) string {
	if r.Mode == "keepalive" {
		return fmt.Sprintf("%s requests over %s connections", metric.Thousands(float64(r.Requests)), metric.Thousands(float64(r.Connections)))
	}
	return metric.Thousands(float64(r.Connections)) + " connections"
}

// pValue prints a p-value as a relation, without an exponent: "= 0.432",
// "< 0.0001".
func pValue(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return fmt.Sprintf("= %.3g", p)
}

// testLine is the title's verdict: "chi-square p = 0.432 (consistent with
// the expected split)"; in keep-alive mode the requests' test and the
// connections' split side by side.
func testLine(r results.FairnessRun) string {
	line := fmt.Sprintf("chi-square p %s (%s)", pValue(r.ChiSquareP), splitVerdict(r.ChiSquareP))
	if r.Mode != "keepalive" || r.ConnChiSquareP == nil {
		return line
	}
	conns := make([]string, len(r.Endpoints))
	for i, e := range r.Endpoints {
		conns[i] = fmt.Sprint(e.Connections)
	}
	return fmt.Sprintf("requests: %s\nconnections %s (the kernel's choices): p %s (%s)", line, strings.Join(conns, " / "),
		pValue(*r.ConnChiSquareP), splitVerdict(*r.ConnChiSquareP))
}

func splitVerdict(p float64) string {
	if p < 0.01 {
		return "the split is NOT the expected one"
	}
	return "consistent with the expected split"
}

// shareBars draws one filled rectangle per endpoint, in data units.
func shareBars(endpoints []results.Endpoint, c color.RGBA) (*plotter.Polygon, error) {
	rects := make([]plotter.XYer, len(endpoints))
	for i, e := range endpoints {
		x := float64(i)
		rects[i] = plotter.XYs{{X: x - barHalfWidth, Y: 0}, {X: x + barHalfWidth, Y: 0}, {X: x + barHalfWidth, Y: e.Share}, {X: x - barHalfWidth, Y: e.Share}}
	}
	bars, err := plotter.NewPolygon(rects...)
	if err != nil {
		return nil, err
	}
	bars.Color = tint(c)
	bars.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(0.8)}
	return bars, nil
}

// shareErrors pairs each share with its interval for YErrorBars.
type shareErrors struct {
	plotter.XYs
	plotter.YErrors
}

// shareIntervals draws each share's 95% Wilson interval.
func shareIntervals(endpoints []results.Endpoint) (*plotter.YErrorBars, error) {
	se := shareErrors{XYs: make(plotter.XYs, len(endpoints)), YErrors: make(plotter.YErrors, len(endpoints))}
	for i, e := range endpoints {
		se.XYs[i] = plotter.XY{X: float64(i), Y: e.Share}
		se.YErrors[i].Low = math.Max(e.Share-e.ShareLo, 0)
		se.YErrors[i].High = math.Max(e.ShareHi-e.Share, 0)
	}
	bars, err := plotter.NewYErrorBars(se)
	if err != nil {
		return nil, err
	}
	bars.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	return bars, nil
}

// addExpected draws the expected share: one line across the plot when all
// endpoints expect the same share, else a segment over each bar.
func addExpected(p *gplot.Plot, endpoints []results.Endpoint) error {
	style := draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: fitDashes}
	var lines []*plotter.Line
	if sameExpected(endpoints) {
		y := endpoints[0].Expected
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: y}, {X: float64(len(endpoints)) - 0.5, Y: y}})
		if err != nil {
			return err
		}
		lines = append(lines, l)
	} else {
		for i, e := range endpoints {
			x := float64(i)
			l, err := plotter.NewLine(plotter.XYs{{X: x - 0.45, Y: e.Expected}, {X: x + 0.45, Y: e.Expected}})
			if err != nil {
				return err
			}
			lines = append(lines, l)
		}
	}
	for _, l := range lines {
		l.LineStyle = style
		p.Add(l)
	}
	p.Legend.Add("expected share", lines[0])
	return nil
}

func sameExpected(endpoints []results.Endpoint) bool {
	for _, e := range endpoints {
		if e.Expected != endpoints[0].Expected {
			return false
		}
	}
	return true
}

// nameEndpoints labels the x axis with pod names (or addresses), turned a
// quarter when there are many and thinned out when there are very many.
func nameEndpoints(p *gplot.Plot, endpoints []results.Endpoint) {
	every := (len(endpoints) + maxEndpointLabels - 1) / maxEndpointLabels
	ticks := make([]gplot.Tick, len(endpoints))
	for i, e := range endpoints {
		ticks[i].Value = float64(i)
		if i%every == 0 {
			ticks[i].Label = endpointName(e)
		}
	}
	p.X.Tick.Marker = gplot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.6, float64(len(endpoints))-0.4
	if len(endpoints) > 8 {
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
}

func endpointName(e results.Endpoint) string {
	if e.Pod != "" {
		return e.Pod
	}
	return e.Endpoint
}

func highestShare(endpoints []results.Endpoint) float64 {
	hi := 0.0
	for _, e := range endpoints {
		hi = max(hi, e.ShareHi, e.Share, e.Expected)
	}
	if hi == 0 {
		return 1
	}
	return hi
}
