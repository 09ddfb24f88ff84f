package cost

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// HoldoutAcross is one figure of the holdout (a dataplane, a size, a
// figure) over several runs of the same recipe: how often the prediction
// met its target and its interval covered the measurement.
type HoldoutAcross struct {
	Dataplane string  `json:"dataplane"`
	Services  int     `json:"services"`
	Figure    string  `json:"figure"`
	Target    float64 `json:"target,omitempty"`
	// Errors are predicted/measured − 1 in each run, in the runs' order;
	// null where a run did not have the figure.
	Errors  []*float64 `json:"errors"`
	Runs    int        `json:"runs"`
	Within  int        `json:"within"`
	Covered int        `json:"covered"`
}

// HoldoutAcrossRuns gathers each figure of several runs' holdout rows (one
// slice per run), in the order the figures first appear.
func HoldoutAcrossRuns(runs [][]HoldoutRow) []HoldoutAcross {
	var out []HoldoutAcross
	index := map[string]int{}
	for i, rows := range runs {
		for _, r := range rows {
			key := fmt.Sprintf("%s\x00%d\x00%s", r.Dataplane, r.Services, r.Figure)
			j, ok := index[key]
			if !ok {
				j = len(out)
				index[key] = j
				out = append(out, HoldoutAcross{Dataplane: r.Dataplane, Services: r.Services, Figure: r.Figure,
					Target: r.Target, Errors: make([]*float64, len(runs))})
			}
			a := &out[j]
			e := r.Error
			a.Errors[i] = &e
			a.Runs++
			if r.Within() {
				a.Within++
			}
			if r.Covered {
				a.Covered++
			}
		}
	}
	return out
}

// WriteHoldoutAcrossMarkdown prints the figures as a Markdown table, one
// error column per run (named by names).
func WriteHoldoutAcrossMarkdown(w io.Writer, across []HoldoutAcross, names []string) error {
	fmt.Fprintf(w, "| dataplane | N | figure | %s | target | within | covered |\n", strings.Join(names, " | "))
	fmt.Fprintf(w, "| --- | --: | --- |%s --: | --: | --: |\n", strings.Repeat(" --: |", len(names)))
	for _, a := range across {
		errs := make([]string, len(a.Errors))
		for i, e := range a.Errors {
			errs[i] = "–"
			if e != nil {
				errs[i] = fmt.Sprintf("%+.1f%%", *e*100)
				if a.Target > 0 && math.Abs(*e) > a.Target {
					errs[i] = "**" + errs[i] + "**"
				}
			}
		}
		target, within := "—", "—"
		if a.Target > 0 {
			target, within = fmt.Sprintf("±%.0f%%", a.Target*100), fmt.Sprintf("%d of %d", a.Within, a.Runs)
		}
		if _, err := fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %d of %d |\n", a.Dataplane, a.Services, a.Figure,
			strings.Join(errs, " | "), target, within, a.Covered, a.Runs); err != nil {
			return err
		}
	}
	return nil
}

// HoldoutAcrossSummary counts, over every run, the targeted figures that
// met their target and the intervals that covered, and the runs in which
// every figure did both.
func HoldoutAcrossSummary(runs [][]HoldoutRow) string {
	var all []HoldoutRow
	clean := 0
	for _, rows := range runs {
		all = append(all, rows...)
		if HoldoutPasses(rows) {
			clean++
		}
	}
	return fmt.Sprintf("over %d runs: %s; %d of %d runs with every figure within target and covered",
		len(runs), HoldoutSummary(all), clean, len(runs))
}

// HoldoutPasses says whether every row meets its target and is covered.
func HoldoutPasses(rows []HoldoutRow) bool {
	for _, r := range rows {
		if !r.Within() || !r.Covered {
			return false
		}
	}
	return true
}
