package compare

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/plot"
	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
)

// htmlFigure is one inline plot.
type htmlFigure struct {
	Caption string
	SVG     template.HTML
}

// htmlRow is one line of the comparison table.
type htmlRow struct {
	Metric, Point, Base, New, Delta, P, Change string
}

// htmlPage is what the template renders.
type htmlPage struct {
	Base, New         *Run
	Matching          string
	Alpha, Confidence string
	Rows              []htmlRow
	Warnings          []string
	Figures           []htmlFigure
	EnvLabels         []string
	BaseEnv, NewEnv   []string
}

// WriteHTML writes one self-contained HTML page comparing the two runs of
// res: their environments, the comparison table (worse rows in red, better
// in green) and the warnings, then the plots as inline SVG: for a sweep,
// p50 and p99 latency per target position and CPU per connection and
// connection rate against services, both runs overlaid (base dashed, new
// solid); for fairness runs, each side's endpoint shares. It loads nothing
// from outside the page.
func WriteHTML(w io.Writer, res *Result) error {
	page := htmlPage{Base: res.Base, New: res.New, Matching: res.Matching,
		Alpha: fmt.Sprint(res.Alpha), Confidence: pct(res.Confidence), Warnings: AllWarnings(res)}
	for _, r := range res.Rows {
		page.Rows = append(page.Rows, htmlRow{MetricLabel(r.Metric), r.Point(), FormatSummary(r.BaseStats),
			FormatSummary(r.NewStats), FormatDelta(r), FormatP(r), changeWord(r.Change)})
	}
	page.EnvLabels, page.BaseEnv, page.NewEnv = environmentTable(res.Base.Meta, res.New.Meta)
	figures, err := htmlFigures(res)
	if err != nil {
		return err
	}
	page.Figures = figures
	return htmlTemplate.Execute(w, page)
}

// htmlFigures draws the plots of the comparison.
func htmlFigures(res *Result) ([]htmlFigure, error) {
	var figs []htmlFigure
	add := func(caption string, p *gplot.Plot, err error) error {
		if errors.Is(err, plot.ErrNoData) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("plot %s: %w", caption, err)
		}
		svg, err := inlineSVG(p)
		if err != nil {
			return fmt.Errorf("plot %s: %w", caption, err)
		}
		figs = append(figs, htmlFigure{Caption: caption, SVG: svg})
		return nil
	}
	positions := sweepPositions(res.Rows)
	for _, pos := range positions {
		for _, name := range []string{metric.P50, metric.P99} {
			p, err := overlayPlot(res, name, pos)
			if err := add(fmt.Sprintf("%s against services, target %s", name, pos), p, err); err != nil {
				return nil, err
			}
		}
	}
	if len(positions) > 0 {
		for _, name := range []string{metric.CPUPerConn, metric.ConnPerSec} {
			p, err := overlayPlot(res, name, positions[0])
			if err := add(fmt.Sprintf("%s against services (measured per dataplane and service count)", name), p, err); err != nil {
				return nil, err
			}
		}
	}
	for _, pr := range fairnessPairs(res.Rows) {
		for _, side := range []struct {
			name string
			run  *Run
			key  Key
		}{{"base", res.Base, pr.base}, {"new", res.New, pr.new}} {
			if f, ok := firstFairness(side.run.Records, side.key); ok {
				p, err := plot.FairnessBars(f)
				if err := add(fmt.Sprintf("%s: endpoint shares, %s", side.name, side.key), p, err); err != nil {
					return nil, err
				}
			}
		}
	}
	return figs, nil
}

// inlineSVG draws p as SVG without the XML prolog, ready to sit in HTML.
func inlineSVG(p *gplot.Plot) (template.HTML, error) {
	var buf bytes.Buffer
	if err := plot.Encode(&buf, p, "svg"); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s), nil
}

// sweepPositions lists the target positions of the sweep rows in report
// order.
func sweepPositions(rows []Row) []string {
	var out []string
	for _, r := range rows {
		if !isFairness(r.Base) && !slices.Contains(out, r.Base.Position) {
			out = append(out, r.Base.Position)
		}
	}
	slices.SortFunc(out, metric.ComparePositions)
	return out
}

// fairnessPairs lists the compared fairness points once each.
func fairnessPairs(rows []Row) []pair {
	var out []pair
	for _, r := range rows {
		p := pair{r.Base, r.New}
		if isFairness(r.Base) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func firstFairness(records []results.Record, k Key) (results.FairnessRun, bool) {
	for _, r := range records {
		if rk, ok := keyOf(r); ok && rk == k && r.Fairness != nil {
			return *r.Fairness, true
		}
	}
	return results.FairnessRun{}, false
}

// environmentTable lists the environment fields side by side.
func environmentTable(base, new *results.Meta) (labels, b, n []string) {
	labels = []string{"scenario", "run", "started", "kernel", "guest kernel", "CPU", "CPUs", "svclab", "git commit", "Go"}
	fields := func(m *results.Meta) []string {
		if m == nil {
			return make([]string, len(labels))
		}
		return []string{m.Scenario, m.Run, m.Started, m.Kernel, m.GuestKernel, m.CPU, fmt.Sprint(m.CPUs),
			m.SvclabVersion, m.GitCommit, m.GoVersion}
	}
	b, n = fields(base), fields(new)
	if base != nil && new != nil {
		for _, tool := range toolNames(base, new) {
			labels = append(labels, tool)
			b, n = append(b, toolVersion(base, tool)), append(n, toolVersion(new, tool))
		}
	}
	return labels, b, n
}
