package cost

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/scenario"
)

// PlanJSON is the JSON form of a plan (svclab plan --json).
type PlanJSON struct {
	Query       Query        `json:"query"`
	Calibration Source       `json:"calibration"`
	Options     Options      `json:"options"`
	Predictions []Prediction `json:"predictions"`
	Warnings    []string     `json:"warnings,omitempty"`
}

// WritePlanJSON writes the query, the calibration and the predictions as JSON.
func WritePlanJSON(w io.Writer, q Query, m *Model, preds []Prediction) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(PlanJSON{Query: q, Calibration: m.Source, Options: m.Options, Predictions: preds, Warnings: m.Warnings})
}

// WritePlanText prints the side-by-side table of a plan, then the warnings.
func WritePlanText(w io.Writer, q Query, m *Model, preds []Prediction) error {
	writePlanHeader(w, q, m, "")
	tw := tabwriter.NewWriter(w, 2, 4, 3, ' ', 0)
	for _, row := range planTable(q, preds) {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writePlanWarnings(w, m, preds, "")
	return nil
}

// WritePlanMarkdown prints the plan as Markdown: the header lines, the
// table, and the warnings as a list.
func WritePlanMarkdown(w io.Writer, q Query, m *Model, preds []Prediction) error {
	writePlanHeader(w, q, m, "- ")
	for i, row := range planTable(q, preds) {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		if i == 0 {
			fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", len(row)))
		}
	}
	writePlanWarnings(w, m, preds, "**warnings**\n")
	return nil
}

func writePlanHeader(w io.Writer, q Query, m *Model, bullet string) {
	what := fmt.Sprintf("%s, %s each", planCount(q.Services, "service"), planCount(q.EndpointsPerService, "endpoint"))
	if c := q.Composition; c != nil {
		what = fmt.Sprintf("%s at %s× (%s, %s, %d KUBE-SERVICES rules)", c.Source, planNumber(c.Scale),
			planCount(c.Services, "service"), planCount(c.Endpoints, "endpoint"), c.ServiceRules)
	}
	fmt.Fprintf(w, "%ssvclab plan: %s; %s new connections/s to %s\n", bullet, what, planNumber(q.NewConnPerSec), planPositionText[q.Position])
	fmt.Fprintf(w, "%scalibration: %s\n", bullet, m.Source)
	if m.Across != nil {
		fmt.Fprintf(w, "%sEXTRAPOLATING ACROSS MACHINES: %s\n", bullet, strings.Join(m.Across.Notes, "; "))
	}
	fmt.Fprintf(w, "%s95%% intervals in brackets; \"—\" = not calibrated\n\n", bullet)
}

// planTable is the header row (dataplanes) and one row per figure.
func planTable(q Query, preds []Prediction) [][]string {
	header := []string{""}
	for _, p := range preds {
		header = append(header, p.Dataplane)
	}
	table := [][]string{header}
	for _, row := range planRows(q, preds) {
		cells := []string{row.label}
		for _, p := range preds {
			cells = append(cells, row.cell(p))
		}
		table = append(table, cells)
	}
	return table
}

var planPositionText = map[string]string{
	PositionUniform: "uniformly random services",
	PositionLast:    "services placed last in KUBE-SERVICES (the worst case)",
	PositionMiddle:  "services placed in the middle of KUBE-SERVICES",
	PositionFirst:   "services placed first in KUBE-SERVICES",
}

func planCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// planRow is one line of the table: a label and how to fill its cell.
type planRow struct {
	label string
	cell  func(Prediction) string
}

func planRows(q Query, preds []Prediction) []planRow {
	rows := []planRow{
		{"lookup", func(p Prediction) string { return strings.ReplaceAll(string(p.Lookup), "-", " ") }},
		{"rules walked per first packet", func(p Prediction) string {
			if p.Lookup == MapLookup {
				return "1 lookup"
			}
			return planNumber(p.Evaluations)
		}},
		{"memory the walk touches", func(p Prediction) string {
			if p.WalkBytes == 0 {
				return "—"
			}
			return sizeText(p.WalkBytes)
		}},
		{"N / largest calibrated N", func(p Prediction) string { return planFactor(p.Extrapolation, p.Beyond) }},
		{"p50 added by lookup (µs)", func(p Prediction) string { return EstimateText(&p.P50us.Added) }},
		{"p50 connect (µs)", func(p Prediction) string { return EstimateText(&p.P50us.Total) }},
		{addrTypeRowLabel, planAddrTypes},
		{recentRowLabel, planRecent},
		{lookupProbeRowLabel, planLookupProbeFactor},
		{"p50 ns per rule", func(p Prediction) string { return planPerRule(&p.P50us) }},
		{"p99 added by lookup (µs)", func(p Prediction) string { return planCost(p.P99us, false) }},
		{"p99 connect (µs)", func(p Prediction) string { return planCost(p.P99us, true) }},
		{recentTailRowLabel, planRecentTail},
		{"CPU per connection added (µs)", func(p Prediction) string { return planCost(p.CPUusPerConn, false) }},
		{fmt.Sprintf("CPU cores at %s conn/s", planNumber(q.NewConnPerSec)), func(p Prediction) string { return EstimateText(p.CPUCores) }},
		{"full sync (s)", func(p Prediction) string { return SyncText(p.SyncFull) }},
		{chainListRowLabel, func(p Prediction) string { return planChainList(p.SyncFull) }},
		{anonymousSetsRowLabel, func(p Prediction) string { return planAnonymousSets(p.SyncFull) }},
		{recentSyncRowLabel, func(p Prediction) string { return planRecentSync(p.SyncFull) }},
		{"incremental sync (s)", func(p Prediction) string { return SyncText(p.SyncIncremental) }},
		{partialChainListRowLabel, func(p Prediction) string { return planChainList(p.SyncIncremental) }},
		{chainDumpRowLabel, func(p Prediction) string { return planChainDump(p.SyncIncremental) }},
		{recentIncrementalRowLabel, func(p Prediction) string { return planRecentSync(p.SyncIncremental) }},
		{"each further change in a sync (s)", func(p Prediction) string { return planPerChange(p) }},
		{fmt.Sprintf("programming latency p50 (s) at %s %s/s", planNumber(q.ChurnPerSec), ChurnKindName(q.ChurnKind)), func(p Prediction) string { return planProgramming(p.Programming, false) }},
		{"programming latency p99 (s)", func(p Prediction) string { return planProgramming(p.Programming, true) }},
		{"kernel memory (MB)", func(p Prediction) string { return EstimateText(p.KernelMemMB) }},
		{"rules", func(p Prediction) string { return fmt.Sprint(p.Ruleset.Rules) }},
		{"chains", func(p Prediction) string { return fmt.Sprint(p.Ruleset.Chains) }},
		{"set/map elements", func(p Prediction) string { return fmt.Sprint(p.Ruleset.Elements) }},
		{"payload bytes", func(p Prediction) string {
			if !p.Ruleset.BytesExact {
				return fmt.Sprintf("≈%d", p.Ruleset.Bytes)
			}
			return fmt.Sprint(p.Ruleset.Bytes)
		}},
	}
	if !slices.ContainsFunc(preds, pricedWalk) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == chainListRowLabel || r.label == partialChainListRowLabel })
	}
	if !slices.ContainsFunc(preds, pricedDump) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == chainDumpRowLabel })
	}
	if !slices.ContainsFunc(preds, pricedAnonymousSets) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == anonymousSetsRowLabel })
	}
	if !slices.ContainsFunc(preds, func(p Prediction) bool { return p.AddrTypeMatches > 0 }) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == addrTypeRowLabel })
	}
	if !slices.ContainsFunc(preds, func(p Prediction) bool { return p.RecentSteps > 0 }) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == recentRowLabel })
	}
	if !slices.ContainsFunc(preds, func(p Prediction) bool { return p.SyncFull != nil && p.SyncFull.RecentLists != nil }) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == recentSyncRowLabel })
	}
	if !slices.ContainsFunc(preds, func(p Prediction) bool { return p.SyncIncremental != nil && p.SyncIncremental.RecentLists != nil }) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == recentIncrementalRowLabel })
	}
	if !slices.ContainsFunc(preds, func(p Prediction) bool { return p.RecentTailSteps > 0 }) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == recentTailRowLabel })
	}
	if !slices.ContainsFunc(preds, probedLookup) {
		rows = slices.DeleteFunc(rows, func(r planRow) bool { return r.label == lookupProbeRowLabel })
	}
	return rows
}

// addrTypeRowLabel is the row of the addrtype matches a first packet
// evaluates and what they add to its p50, shown when some dataplane's walk
// has them.
const addrTypeRowLabel = "  of which addrtype matches: count, µs"

func planAddrTypes(p Prediction) string {
	switch {
	case p.AddrTypeMatches == 0:
		return "—"
	case p.AddrTypeUs == nil:
		return planNumber(p.AddrTypeMatches) + ", not priced"
	}
	return planNumber(p.AddrTypeMatches) + ", " + EstimateText(p.AddrTypeUs)
}

// recentRowLabel is the row of the steps a first packet takes through
// xt_recent's list of lists (ClientIP affinity) and what they add to its
// p50, shown when some dataplane's walk has them.
const recentRowLabel = "  of which xt_recent list steps: count, µs"

// recentTailRowLabel is the same for the slowest 1% of connections spread
// uniformly over the Services, what their p99 adds.
const recentTailRowLabel = "  of which xt_recent list steps, slowest 1%: count, µs"

func planRecent(p Prediction) string { return planSteps(p.RecentSteps, p.RecentUs) }

func planRecentTail(p Prediction) string { return planSteps(p.RecentTailSteps, p.RecentTailUs) }

func planSteps(steps float64, us *Estimate) string {
	switch {
	case steps == 0:
		return "—"
	case us == nil:
		return planNumber(steps) + ", not priced"
	}
	return planNumber(steps) + ", " + EstimateText(us)
}

// lookupProbeRowLabel is the row of the p50's own extrapolation where
// lookup probes measured the map lookup past the calibrated sizes
// (CostPrediction.Extrapolation), shown when some dataplane's was.
const lookupProbeRowLabel = "  p50's N / largest lookup probe"

// probedLookup says whether p's p50 was predicted from lookup probes.
func probedLookup(p Prediction) bool { return p.P50us.Extrapolation > 0 }

func planLookupProbeFactor(p Prediction) string {
	if !probedLookup(p) {
		return "—"
	}
	return planFactor(p.P50us.Extrapolation, false)
}

// anonymousSetsRowLabel is the row of a full sync's anonymous-set walks,
// shown when some dataplane's were priced.
const anonymousSetsRowLabel = "  of which the kernel's anonymous-set walks (s)"

// pricedAnonymousSets says whether p's full sync was priced with its
// anonymous sets' walks.
func pricedAnonymousSets(p Prediction) bool {
	return p.SyncFull != nil && p.SyncFull.AnonymousSets != nil
}

func planAnonymousSets(s *SyncPrediction) string {
	if s == nil || s.AnonymousSets == nil {
		return "—"
	}
	return EstimateText(s.AnonymousSets)
}

// recentSyncRowLabel and recentIncrementalRowLabel are the rows of the
// syncs' xt_recent list walks, shown when some dataplane's were priced.
const (
	recentSyncRowLabel        = "  of which xt_recent list walks, loading (s)"
	recentIncrementalRowLabel = "  of which xt_recent list walks, reloading (s)"
)

func planRecentSync(s *SyncPrediction) string {
	if s == nil || s.RecentLists == nil {
		return "—"
	}
	return EstimateText(s.RecentLists)
}

// chainDumpRowLabel is the row of an incremental sync's chain dump walk,
// shown when some dataplane's was priced.
const chainDumpRowLabel = "  of which the kernel's chain-dump walk (s)"

// pricedDump says whether p's incremental sync was priced with its chain
// dump's walk.
func pricedDump(p Prediction) bool {
	return p.SyncIncremental != nil && p.SyncIncremental.ChainDump != nil
}

func planChainDump(s *SyncPrediction) string {
	if s == nil || s.ChainDump == nil {
		return "—"
	}
	return EstimateText(s.ChainDump)
}

// The rows of the syncs' chain-list walks, shown when some dataplane's
// were priced.
const (
	chainListRowLabel        = "  of which the restore's chain-list walk (s)"
	partialChainListRowLabel = "  of which its chain-list walk (s)"
)

// pricedWalk says whether a sync of p was priced with its chain-list walk.
func pricedWalk(p Prediction) bool {
	return (p.SyncFull != nil && p.SyncFull.ChainList != nil) || (p.SyncIncremental != nil && p.SyncIncremental.ChainList != nil)
}

func planChainList(s *SyncPrediction) string {
	if s == nil || s.ChainList == nil {
		return "—"
	}
	return EstimateText(s.ChainList)
}

func planProgramming(p *ProgrammingLatency, p99 bool) string {
	switch {
	case p == nil:
		return "—"
	case p99:
		return EstimateText(&p.P99s)
	}
	return EstimateText(&p.P50s)
}

func planCost(c *CostPrediction, total bool) string {
	switch {
	case c == nil:
		return "—"
	case total:
		return EstimateText(&c.Total)
	}
	return EstimateText(&c.Added)
}

func planPerRule(c *CostPrediction) string {
	if c.PerEvaluation == nil {
		return "—"
	}
	ns := c.PerEvaluation.Scale(1e3)
	return EstimateText(&ns)
}

// SyncText prints a sync time as plan's table does: the estimate, the
// fit's form and the extrapolation factor, or "—" for nil.
func SyncText(s *SyncPrediction) string {
	if s == nil {
		return "—"
	}
	return fmt.Sprintf("%s %s %s", EstimateText(&s.Seconds), s.Form, planFactor(s.Extrapolation, s.Beyond))
}

// planFactor prints an extrapolation factor, marking one beyond calibration.
func planFactor(f float64, beyond bool) string {
	s := "×" + planNumber(f)
	if beyond {
		s += " beyond"
	}
	return s
}

// EstimateText prints "v [lo, hi]", "v (no interval)" or "—" for nil (the
// 95% interval in brackets, three significant digits).
func EstimateText(e *Estimate) string {
	switch {
	case e == nil:
		return "—"
	case e.NoInterval:
		return planNumber(e.Value) + " (no interval)"
	}
	return fmt.Sprintf("%s [%s, %s]", planNumber(e.Value), planNumber(e.Lo), planNumber(e.Hi))
}

// planNumber prints three significant digits, whole numbers in full.
func planNumber(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// writePlanWarnings prints the model's and the predictions' warnings, each
// once.
func writePlanWarnings(w io.Writer, m *Model, preds []Prediction, title string) {
	warnings := slices.Clone(m.Warnings)
	for _, p := range preds {
		for _, s := range p.Warnings {
			if !slices.Contains(warnings, s) {
				warnings = append(warnings, s)
			}
		}
	}
	if title == "" {
		title = "warnings:\n"
	}
	writeWarningList(w, title, warnings)
}

// writeWarningList prints warnings under title after a blank line, one
// "  - " item each; nothing when there are none.
func writeWarningList(w io.Writer, title string, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	fmt.Fprint(w, "\n"+title)
	for _, s := range warnings {
		fmt.Fprintf(w, "  - %s\n", s)
	}
}

// planPerChange is what each further change adds to a sync, naming the
// kind of change when the calibration batched Service creations.
func planPerChange(p Prediction) string {
	text := SyncText(p.SyncPerChange)
	if p.SyncPerChange != nil && p.SyncPerChangeKind == scenario.BatchServices {
		text += " per Service created"
	}
	return text
}
