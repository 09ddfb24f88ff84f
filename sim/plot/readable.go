package plot

import (
	"fmt"
	"math"

	"github.com/svclab/svclab/sim/metric"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// overlapTolerance is how close two series' medians must be, relative to
// the larger, at every service count for the legend to say they overlap.
const overlapTolerance = 0.03

// legendRowHeight is about one legend entry's height on a saved plot.
const legendRowHeight = 12 // points

// labelledTicks is about how many labelled ticks an axis gets.
const labelledTicks = 8

// readableTicks labels an axis every 1, 2 or 5 × 10^k, about
// labelledTicks times, with thousands separators and no exponent: 20,000
// rather than 20000 or 2e+04.
type readableTicks struct{}

// Ticks implements gplot.Ticker.
func (readableTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) {
		return gplot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep((hi - lo) / labelledTicks)
	var ticks []gplot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: metric.Thousands(v)})
	}
	return ticks
}

// niceStep is the smallest 1, 2 or 5 × 10^k at least raw.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// overlapNames appends "(overlaps X)" to the name of each series whose
// medians lie on an earlier series' at every service count, so a legend
// never shows more entries than visible lines without saying why.
func overlapNames(all []series, names []string) []string {
	out := append([]string(nil), names...)
	for i := range all {
		for j := 0; j < i; j++ {
			if sameLine(all[i], all[j]) {
				out[i] += fmt.Sprintf(" (overlaps %s)", names[j])
				break
			}
		}
	}
	return out
}

// sameLine says two series have medians at the same service counts within
// overlapTolerance.
func sameLine(a, b series) bool {
	if len(a.medians) != len(b.medians) || len(a.medians) == 0 {
		return false
	}
	for i := range a.medians {
		x, y := a.medians[i], b.medians[i]
		if x.X != y.X || math.Abs(x.Y-y.Y) > overlapTolerance*math.Max(math.Abs(x.Y), math.Abs(y.Y)) {
			return false
		}
	}
	return true
}

// keepLegendOffData raises the y axis so that the legend, drawn in the top
// left corner, sits above the highest value: the legend's rows take about
// legendRowHeight points each of the plot's height.
func keepLegendOffData(p *gplot.Plot, entries int, dataMax, dataMin float64, height vg.Length) {
	if dataMax <= 0 || entries == 0 {
		return
	}
	share := math.Min(0.6, float64(entries*legendRowHeight+24)/float64(height.Points()-60))
	if _, isLog := p.Y.Scale.(gplot.LogScale); isLog && dataMin > 0 {
		decades := math.Log10(dataMax / dataMin)
		p.Y.Max = math.Max(p.Y.Max, dataMax*math.Pow(10, decades*share/(1-share)))
		return
	}
	p.Y.Max = math.Max(p.Y.Max, dataMax/(1-share))
}
