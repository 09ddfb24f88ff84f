package plot

import (
	"fmt"
	"image/color"
	"math"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Cascade plots the statistic cascade of the runs that have one (iptables:
// KUBE-SVC's rules, as traced and counted by the kernel): per rule, per
// dataplane, the share of the connections that reached the rule which it
// took, with its 95% interval and a label "took 4,030 of 20,000"; the
// rule's own probability, read from the rules, is a dashed segment. It is
// the point of a split-N run: 1/n, 1/(n−1), …, 1/2, 1 gives each endpoint
// 1/n.
func Cascade(runs []results.FairnessRun) (*gplot.Plot, error) {
	var with []results.FairnessRun
	for _, r := range runs {
		if len(r.Rules) > 1 {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		return nil, fmt.Errorf("cascade: %w", ErrNoData)
	}
	rules := with[0].Rules
	title := fmt.Sprintf("%s: the statistic cascade, rule by rule (%s)\nbar: connections a rule took of those that reached it; dashed: the rule's probability",
		with[0].Service, with[0].Rules[0].Chain)
	p := newPlot(title, "rule in the service chain (its probability)", "share taken of those that reached it")
	p.Add(horizontalGrid())
	names := make([]string, len(with))
	for i, r := range with {
		names[i] = r.Dataplane
	}
	w := groupWidth / float64(len(with))
	var bars []bar
	for ri := range rules {
		for di, r := range with {
			if ri >= len(r.Rules) {
				continue
			}
			rule := r.Rules[ri]
			c := colorOf(r.Dataplane, names)
			x := float64(ri) - groupWidth/2 + w*(float64(di)+0.5)
			bars = append(bars, bar{x: x, y: rule.Observed, w: w, fill: tint(c), edge: c,
				label: fmt.Sprintf("took %s of %s", metric.Thousands(float64(rule.Packets)), metric.Thousands(float64(rule.Reached)))})
		}
	}
	if err := drawBars(p, bars); err != nil {
		return nil, err
	}
	if err := cascadeIntervals(p, with, w); err != nil {
		return nil, err
	}
	if err := ruleProbabilities(p, rules); err != nil {
		return nil, err
	}
	for _, r := range with {
		c := colorOf(r.Dataplane, names)
		p.Legend.Add(r.Dataplane+" (kernel counters)", swatch(tint(c), c))
	}
	ticks := make([]gplot.Tick, len(rules))
	for i, r := range rules {
		ticks[i] = gplot.Tick{Value: float64(i), Label: fmt.Sprintf("rule %d (p = %s)", r.Index, probability(r.Probability))}
	}
	p.X.Tick.Marker = gplot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.6, float64(len(rules))-0.4
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = percentTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	keepLegendOffData(p, len(with)+1, 1, 0, Height)
	return p, nil
}

// cascadeIntervals draws each rule's 95% interval.
func cascadeIntervals(p *gplot.Plot, runs []results.FairnessRun, w float64) error {
	se := shareErrors{}
	for ri := range runs[0].Rules {
		for di, r := range runs {
			if ri >= len(r.Rules) {
				continue
			}
			rule := r.Rules[ri]
			se.XYs = append(se.XYs, plotter.XY{X: float64(ri) - groupWidth/2 + w*(float64(di)+0.5), Y: rule.Observed})
			se.YErrors = append(se.YErrors, struct{ Low, High float64 }{math.Max(rule.Observed-rule.ObservedLo, 0), math.Max(rule.ObservedHi-rule.Observed, 0)})
		}
	}
	bars, err := plotter.NewYErrorBars(se)
	if err != nil {
		return err
	}
	bars.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	p.Add(bars)
	return nil
}

// ruleProbabilities draws each rule's probability as a dashed segment over
// its group.
func ruleProbabilities(p *gplot.Plot, rules []results.Rule) error {
	style := draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: fitDashes}
	var first *plotter.Line
	for i, r := range rules {
		x := float64(i)
		l, err := plotter.NewLine(plotter.XYs{{X: x - 0.46, Y: r.Probability}, {X: x + 0.46, Y: r.Probability}})
		if err != nil {
			return err
		}
		l.LineStyle = style
		p.Add(l)
		if first == nil {
			first = l
		}
	}
	p.Legend.Add("the rule's probability (from the rules)", first)
	return nil
}

// probability prints a rule's probability as the rules round it: 0.2,
// 0.25, 0.333, 0.5, 1.
func probability(v float64) string {
	return fmt.Sprintf("%.3g", v)
}
