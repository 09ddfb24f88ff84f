package main

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/compare"
)

// gateOutput is what gate prints: in text, one line each; in JSON
// (--format json) one object a CI step can read.
type gateOutput struct {
	Verdict  compare.Outcome `json:"verdict"`
	Summary  string          `json:"summary"`
	Base     string          `json:"base"`
	New      string          `json:"new"`
	Matching string          `json:"matching"`
	// Gated counts the gated comparisons.
	Gated        int        `json:"gated"`
	Regressions  []gateLine `json:"regressions"`
	Missing      []gateLine `json:"missing"`
	Inconclusive []gateLine `json:"inconclusive"`
	Power        string     `json:"power"`
}

// gateLine is one gated comparison the verdict names.
type gateLine struct {
	Metric string `json:"metric"`
	Point  string `json:"point"`
	// ChangePct is the change of the median in percent; P its p-value;
	// Threshold the metric's threshold in percent.
	ChangePct float64 `json:"change_pct"`
	P         float64 `json:"p"`
	Threshold float64 `json:"threshold_pct,omitempty"`
	// Needed is the repetitions per point that would decide an
	// inconclusive comparison (-1: none would).
	Needed int    `json:"repetitions_needed,omitempty"`
	Line   string `json:"line"`
}

func gateOutputOf(v compare.Verdict, res *compare.Result) gateOutput {
	out := gateOutput{
		Verdict: v.Outcome(), Summary: v.String(), Base: res.Base.Path, New: res.New.Path, Matching: res.Matching,
		Gated: v.Gated, Power: v.Power(),
		Regressions: []gateLine{}, Missing: []gateLine{}, Inconclusive: []gateLine{},
	}
	for _, f := range v.Failures {
		out.Regressions = append(out.Regressions, gateLine{Metric: f.Row.Metric.Name, Point: f.Row.Point(),
			ChangePct: f.Row.DeltaPct, P: f.Row.P, Threshold: f.Threshold, Line: f.String()})
	}
	for _, t := range v.Timeline {
		out.Regressions = append(out.Regressions, gateLine{Metric: t.What, Point: t.Comparison.Dataplane + " (timeline)", Line: t.String()})
	}
	for _, m := range v.Missing {
		out.Missing = append(out.Missing, gateLine{Metric: m.Metric.Name, Point: m.Point, Line: m.String()})
	}
	for _, u := range v.Undecided {
		out.Inconclusive = append(out.Inconclusive, gateLine{Metric: u.Row.Metric.Name, Point: u.Row.Point(),
			ChangePct: u.Row.Shift.EstPct, P: u.Row.P, Threshold: u.Threshold, Needed: u.Needed, Line: u.String()})
	}
	return out
}

// lines are the named comparisons in the order gate prints them.
func (o gateOutput) lines() []gateLine {
	return append(append(append([]gateLine(nil), o.Regressions...), o.Missing...), o.Inconclusive...)
}

func (o gateOutput) writeText(w io.Writer) {
	fmt.Fprintf(w, "gate: %s against baseline %s; %s\n", o.New, o.Base, o.Matching)
	for _, l := range o.lines() {
		fmt.Fprintln(w, l.Line)
	}
	fmt.Fprintln(w, o.Power)
	fmt.Fprintln(w, o.Summary)
}

// writeMarkdown writes the verdict for $GITHUB_STEP_SUMMARY: a heading
// with the verdict, the named comparisons as a list, the power line.
func (o gateOutput) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "### svclab gate: %s\n\n`%s` against baseline `%s`; %s\n\n", o.Verdict, o.New, o.Base, o.Matching)
	for _, l := range o.lines() {
		fmt.Fprintf(w, "- %s\n", markdownCell(l.Line))
	}
	fmt.Fprintf(w, "\n%s\n\n**%s**\n", o.Power, o.Summary)
}
