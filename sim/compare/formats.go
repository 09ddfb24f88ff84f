package compare

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/stats"
)

// csvHeader is WriteCSV's first line.
var csvHeader = []string{"metric", "unit", "direction", "base_point", "new_point",
	"base_median", "base_lo", "base_hi", "base_n", "new_median", "new_lo", "new_hi", "new_n",
	"delta_pct", "p", "significant", "change", "warnings"}

// WriteCSV writes one line per row, with a header line. An interval the
// samples are too few for has empty bounds; warnings are joined by "; ".
func WriteCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, r := range res.Rows {
		line := []string{r.Metric.Name, r.Metric.Unit, r.Metric.Direction.String(), r.Base.String(), r.New.String()}
		line = append(line, summaryCells(r.BaseStats)...)
		line = append(line, summaryCells(r.NewStats)...)
		line = append(line, num(r.DeltaPct), num(r.P), strconv.FormatBool(r.Significant), changeName(r.Change), joinWarnings(r.Warnings))
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func summaryCells(s stats.Summary) []string {
	lo, hi := num(s.Lo), num(s.Hi)
	if s.Unbounded {
		lo, hi = "", ""
	}
	return []string{num(s.Center), lo, hi, strconv.Itoa(s.N)}
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// changeName is "worse", "better" or "~".
func changeName(c Change) string {
	if w := changeWord(c); w != "" {
		return w
	}
	return "~"
}

// jsonResult is WriteJSON's document.
type jsonResult struct {
	Base             jsonRun   `json:"base"`
	New              jsonRun   `json:"new"`
	Alpha            float64   `json:"alpha"`
	Confidence       float64   `json:"confidence"`
	Matching         string    `json:"matching"`
	AcrossDataplanes bool      `json:"across_dataplanes"`
	Rows             []jsonRow `json:"rows"`
	Warnings         []string  `json:"warnings,omitempty"`
}

type jsonRun struct {
	Path string        `json:"path"`
	Meta *results.Meta `json:"meta,omitempty"`
}

type jsonRow struct {
	Metric      string        `json:"metric"`
	Unit        string        `json:"unit,omitempty"`
	Direction   string        `json:"direction"`
	BasePoint   Key           `json:"base_point"`
	NewPoint    Key           `json:"new_point"`
	Base        stats.Summary `json:"base"`
	New         stats.Summary `json:"new"`
	DeltaPct    float64       `json:"delta_pct"`
	P           float64       `json:"p"`
	Significant bool          `json:"significant"`
	Change      string        `json:"change"` // worse, better or ~
	Warnings    []string      `json:"warnings,omitempty"`
}

// WriteJSON writes the result as one indented JSON document.
func WriteJSON(w io.Writer, res *Result) error {
	doc := jsonResult{
		Base: jsonRun{res.Base.Path, res.Base.Meta}, New: jsonRun{res.New.Path, res.New.Meta},
		Alpha: res.Alpha, Confidence: res.Confidence, Matching: res.Matching,
		AcrossDataplanes: res.AcrossDataplanes, Warnings: res.Warnings, Rows: []jsonRow{},
	}
	for _, r := range res.Rows {
		doc.Rows = append(doc.Rows, jsonRow{
			Metric: r.Metric.Name, Unit: r.Metric.Unit, Direction: r.Metric.Direction.String(),
			BasePoint: r.Base, NewPoint: r.New, Base: r.BaseStats, New: r.NewStats,
			DeltaPct: r.DeltaPct, P: r.P, Significant: r.Significant, Change: changeName(r.Change), Warnings: r.Warnings,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
