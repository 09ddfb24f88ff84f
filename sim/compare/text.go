package compare

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/stats"
)

// WriteText writes a benchstat-like table: one line per metric and point
// with each side's median ± the half-width of its interval in percent, the
// change of the median ("~" when not significant), the p-value and sample
// sizes, and whether the change is worse or better; then the warnings.
func WriteText(w io.Writer, res *Result) error {
	fmt.Fprintf(w, "base: %s\nnew:  %s\n", res.Base.Describe(), res.New.Describe())
	fmt.Fprintf(w, "matching: %s\n", res.Matching)
	fmt.Fprintf(w, "medians ± %s intervals; Mann-Whitney U test at alpha %v; \"~\": no significant change\n\n",
		pct(res.Confidence), res.Alpha)
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tpoint\tbase\tnew\tdelta\tp\t")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", MetricLabel(r.Metric), r.Point(),
			FormatSummary(r.BaseStats), FormatSummary(r.NewStats), FormatDelta(r), FormatP(r), changeWord(r.Change))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(table.String(), "\n") {
		fmt.Fprint(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n")))
	}
	warnings := AllWarnings(res)
	if len(warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings:")
		for _, s := range warnings {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	return nil
}

// MetricLabel is the metric's name with its unit, e.g. "p50_us (µs)".
func MetricLabel(m Metric) string {
	if m.Unit == "" {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}

// FormatSummary formats a median and its interval as benchstat does:
// "301 ± 4%", "12.5 ± ∞" when the samples are too few for an interval.
func FormatSummary(s stats.Summary) string {
	if s.N == 0 {
		return "-"
	}
	if s.Unbounded {
		return FormatValue(s.Center) + " ± ∞"
	}
	if s.Center == 0 {
		return FormatValue(s.Center) + " ± 0%"
	}
	half := math.Max(s.Hi/s.Center-1, 1-s.Lo/s.Center)
	return fmt.Sprintf("%s ± %.0f%%", FormatValue(s.Center), 100*half)
}

// FormatValue prints v with three significant digits and no exponent:
// 12463, 301, 12.5, 0.442, 0.0190.
func FormatValue(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	decimals := max(0, 2-int(math.Floor(math.Log10(math.Abs(rounded)))))
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// FormatDelta is "~" when the change is not significant, else the change
// of the median in percent, e.g. "+31.20%".
func FormatDelta(r Row) string {
	if !r.Significant {
		return "~"
	}
	return fmt.Sprintf("%+.2f%%", r.DeltaPct)
}

// FormatP is the p-value and the sample sizes, e.g. "p=0.008 n=5+5".
func FormatP(r Row) string {
	n := fmt.Sprintf("n=%d+%d", r.BaseStats.N, r.NewStats.N)
	if r.BaseStats.N == r.NewStats.N {
		n = fmt.Sprintf("n=%d", r.BaseStats.N)
	}
	return fmt.Sprintf("p=%.3f %s", r.P, n)
}

func changeWord(c Change) string {
	switch c {
	case Worse:
		return "worse"
	case Better:
		return "better"
	}
	return ""
}

func pct(level float64) string {
	return strconv.FormatFloat(level*100, 'f', -1, 64) + "%"
}

// AllWarnings returns the result's warnings, then the rows' warnings, each
// distinct text once with the number of rows that gave it.
func AllWarnings(res *Result) []string {
	out := append([]string(nil), res.Warnings...)
	var texts []string
	count := map[string]int{}
	for _, r := range res.Rows {
		for _, w := range r.Warnings {
			if count[w] == 0 {
				texts = append(texts, w)
			}
			count[w]++
		}
	}
	for _, t := range texts {
		out = append(out, fmt.Sprintf("%s (%s)", t, plural(count[t], "comparison")))
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// joinWarnings joins a row's warnings for one-cell outputs.
func joinWarnings(ws []string) string { return strings.Join(ws, "; ") }
