package ab

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/compare"
)

// Formats WriteReport writes.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// WriteReport writes the analysis of plan's run in format.
func WriteReport(w io.Writer, format string, plan *Plan, res *Result) error {
	switch format {
	case FormatJSON:
		return writeJSON(w, plan, res)
	case FormatMarkdown:
		return writeMarkdown(w, plan, res)
	}
	return writeText(w, plan, res)
}

type jsonReport struct {
	Plan   *Plan           `json:"plan,omitempty"`
	Rows   []Row           `json:"rows"`
	Result compare.Outcome `json:"outcome"`
	// Detectable is null when a primary interval is unbounded.
	Detectable *float64 `json:"detectable_pct"`
	Needed     int      `json:"needed,omitempty"`
	Alpha      float64  `json:"alpha"`
}

func writeJSON(w io.Writer, plan *Plan, res *Result) error {
	doc := jsonReport{Plan: plan, Rows: res.Rows, Result: res.Outcome, Needed: res.Needed, Alpha: res.Alpha}
	if !math.IsInf(res.Detectable, 0) {
		doc.Detectable = &res.Detectable
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// header is the report's first line.
func header(plan *Plan) string {
	if plan == nil {
		return ""
	}
	return fmt.Sprintf("A/B of scenario %s: %d repetitions per side, interleaved in a random order (seed %d)\n  base: %s\n  new:  %s\n",
		plan.Scenario, plan.Repetitions, plan.Seed, describe(plan.Base), describe(plan.New))
}

func describe(s Side) string {
	parts := append([]string{s.Binary}, s.Args...)
	if len(s.Env) > 0 {
		parts = append(slices.Clone(s.Env), parts...)
	}
	return strings.Join(parts, " ")
}

// ratio prints a row's ratio as "1.112 [1.071, 1.160]".
func ratio(r Row) string {
	if !r.Bounded {
		return fmt.Sprintf("%.3f [unbounded: too few pairs]", r.Ratio)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", r.Ratio, r.RatioLo, r.RatioHi)
}

// Line is a primary row's verdict line, e.g. "REGRESSION p50_us nftables
// 1000 last: new/base 1.112 [1.071, 1.160], p=0.004 q=0.008, threshold 5%".
func (r Row) Line() string {
	s := fmt.Sprintf("%s %s %s %d %s: new/base %s, p=%.3f q=%.3f, threshold %g%%",
		r.Outcome, r.Metric, r.Dataplane, r.Services, r.Position, ratio(r), r.P, r.Q, r.Threshold)
	if r.PairsForTwice > 0 {
		s += fmt.Sprintf("; pairs spread ±%.1f%%: about %d pairs catch a +%g%% change 9 times in 10", r.SpreadPct, r.PairsForTwice, 2*r.Threshold)
	}
	if r.Outcome != compare.Inconclusive {
		return s
	}
	if r.Needed < 0 {
		return s + fmt.Sprintf("; no practical number of repetitions would decide (have %d)", r.Pairs)
	}
	return s + fmt.Sprintf("; about %d repetitions per side would decide (have %d)", r.Needed, r.Pairs)
}

// Summary is the verdict line with the power statement.
func (res *Result) Summary() string {
	n := 0
	for _, r := range res.Rows {
		if r.Primary {
			n++
		}
	}
	power := "an interval is unbounded: too few pairs to tell any change"
	if !math.IsInf(res.Detectable, 0) {
		power = fmt.Sprintf("the widest primary interval is ±%.1f%%, so changes smaller than about that could not be told from none", res.Detectable)
	}
	return fmt.Sprintf("%s over %d primary comparisons (Benjamini-Hochberg, alpha %g); power: %s", res.Outcome, n, res.Alpha, power)
}

func writeText(w io.Writer, plan *Plan, res *Result) error {
	var b strings.Builder
	b.WriteString(header(plan))
	b.WriteString("\nprimary (gated):\n")
	for _, r := range res.Rows {
		if r.Primary {
			fmt.Fprintf(&b, "  %s\n", r.Line())
		}
	}
	b.WriteString("\nreported (not gated): new/base [95% interval], pairs, p\n")
	for _, r := range res.Rows {
		if !r.Primary {
			fmt.Fprintf(&b, "  %-18s %-14s %6d %-8s %-32s n=%d p=%.3f\n", r.Metric, r.Dataplane, r.Services, r.Position, ratio(r), r.Pairs, r.P)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", res.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdown(w io.Writer, plan *Plan, res *Result) error {
	var b strings.Builder
	if h := header(plan); h != "" {
		fmt.Fprintf(&b, "```\n%s```\n\n", h)
	}
	b.WriteString("| gated | metric | dataplane | services | position | new/base | 95% interval | pairs | p | q | verdict |\n")
	b.WriteString("|---|---|---|---:|---|---:|---|---:|---:|---:|---|\n")
	for _, r := range res.Rows {
		gated, q, verdict, interval := "", "", "", "unbounded"
		if r.Primary {
			gated, q, verdict = fmt.Sprintf("≤%g%%", r.Threshold), fmt.Sprintf("%.3f", r.Q), string(r.Outcome)
		}
		if r.Bounded {
			interval = fmt.Sprintf("[%.3f, %.3f]", r.RatioLo, r.RatioHi)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %.3f | %s | %d | %.3f | %s | %s |\n",
			gated, r.Metric, r.Dataplane, r.Services, r.Position, r.Ratio, interval, r.Pairs, r.P, q, verdict)
	}
	fmt.Fprintf(&b, "\n**%s**\n", res.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}
