package cost

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
	"github.com/svclab/svclab/sim/stats"
)

// Holdout targets (issue 23): a prediction at 10× the calibration is good
// when p50 and full sync are within 10% of the measurement, p99 within
// 20%, and its 95% interval covers the measurement.
const (
	HoldoutTargetP50  = 0.10
	HoldoutTargetSync = 0.10
	HoldoutTargetP99  = 0.20
)

// HoldoutRow is one figure predicted from the points with N ≤ MaxN and
// measured at a larger N of the same run.
type HoldoutRow struct {
	Dataplane string   `json:"dataplane"`
	Services  int      `json:"services"`
	Figure    string   `json:"figure"`
	Predicted Estimate `json:"predicted"`
	Measured  float64  `json:"measured"`
	// Error is predicted/measured − 1; Target the allowed |Error| (0: no
	// target); Covered says the interval holds the measurement.
	Error         float64 `json:"error"`
	Target        float64 `json:"target,omitempty"`
	Covered       bool    `json:"covered"`
	Extrapolation float64 `json:"extrapolation"`
	// Loads is how many repetitions the measurement is the median of;
	// MeasuredLow and MeasuredHigh the 95% interval of that median
	// (order statistics: stats.MedianInterval), both 0 with fewer than 6.
	// Where the interval reaches past the target, the run cannot tell a
	// prediction within the target from one outside it (Decided).
	Loads        int     `json:"loads,omitempty"`
	MeasuredLow  float64 `json:"measured_low,omitempty"`
	MeasuredHigh float64 `json:"measured_high,omitempty"`
	// Warnings are the prediction's warnings at this point (its
	// dataplane's calibration and its own, as `svclab plan` prints them)
	// but for the extrapolation past calibration a holdout is made of:
	// the ×calibration column says it.
	Warnings []string `json:"warnings,omitempty"`
}

// Decided says whether the measurement is certain enough to judge the
// row's target: its median's 95% interval lies within ±Target of it.
// Rows without a target, or without an interval, count as decided.
func (r HoldoutRow) Decided() bool {
	if r.Target == 0 || r.MeasuredHigh == 0 || r.Measured <= 0 {
		return true
	}
	return r.MeasuredHigh/r.Measured-1 <= r.Target && 1-r.MeasuredLow/r.Measured <= r.Target
}

// Within says whether the row meets its target (rows without one do).
func (r HoldoutRow) Within() bool { return r.Target == 0 || math.Abs(r.Error) <= r.Target }

// Holdout calibrates on run's points with N ≤ opts.MaxN and predicts every
// measured point above it: first-packet p50 and p99 at the last and the
// uniform position, full and incremental sync, kernel memory and CPU per
// connection (to the last Service).
func Holdout(run *Run, opts Options) ([]HoldoutRow, *Model, error) {
	return HoldoutFrom(run, run, opts, 0)
}

// HoldoutFrom is Holdout with the calibration from another run (cal, say
// a `svclab plan calibrate` directory) on its points with N ≤ opts.MaxN:
// every point of run with at least from services (0: above opts.MaxN) is
// predicted and compared. The machine's drift between the two runs is then
// part of the error, as it is for a user who calibrates one day and
// measures another. A calibration that reaches past a run's points (the
// embedded default's 100,000 Services) checks them with from; a run's own
// points are held out above MaxN only.
func HoldoutFrom(cal, run *Run, opts Options, from int) ([]HoldoutRow, *Model, error) {
	if opts.MaxN <= 0 {
		return nil, nil, fmt.Errorf("holdout: give the largest calibration N (MaxN > 0)")
	}
	switch {
	case from < 0:
		return nil, nil, fmt.Errorf("holdout from %d services: want ≥ 1 (or 0: above the calibration's %d)", from, opts.MaxN)
	case from == 0:
		from = opts.MaxN + 1
	case cal == run && from <= opts.MaxN:
		return nil, nil, fmt.Errorf("holdout from %d services: the run calibrates itself on N ≤ %d, so only its points above that are held out", from, opts.MaxN)
	}
	m, err := CalibrateRun(cal, opts)
	if err != nil {
		return nil, nil, err
	}
	var rows []HoldoutRow
	comps := pointCompositions{run: run}
	for _, p := range run.Points {
		dm, ok := m.Dataplane(p.Dataplane)
		if !ok || p.Services < from || (p.Position != PositionLast && p.Position != PositionUniform) {
			continue
		}
		comp, err := comps.at(p.Services)
		if err != nil {
			return nil, nil, err
		}
		q := Query{Services: p.Services, EndpointsPerService: run.endpointsPerService(), Position: p.Position, Composition: comp}
		if err := q.Validate(); err != nil {
			return nil, nil, err
		}
		size, err := holdoutSize(dm.Mode, q)
		if err != nil {
			return nil, nil, err
		}
		size.Rules = pointRules(dm.Mode, p) // what the lab loaded, as calibration counted it
		pred := m.predictOne(dm, q, size)
		pointRows := holdoutRows(p, pred, walkAtRandom(run, dm), repetitionsOf(run.PointRepetitions, p))
		for i, warnings := 0, pointWarnings(pred, dm, q.Services); i < len(pointRows); i++ {
			pointRows[i].Warnings = warnings
		}
		rows = append(rows, pointRows...)
	}
	return rows, m, nil
}

// pointWarnings are pred's warnings but the one that it is beyond
// calibration, which a holdout is by design.
func pointWarnings(pred Prediction, dm *DataplaneModel, services int) []string {
	return slices.DeleteFunc(slices.Clone(pred.Warnings), func(w string) bool {
		return pred.Beyond && w == beyondWarning(dm, services, pred.Extrapolation)
	})
}

// holdoutSize is the ruleset of a holdout point: the mix's rendered
// composition, or N one-port services with the query's endpoints each.
func holdoutSize(mode string, q Query) (Size, error) {
	if q.Composition == nil {
		return RulesetSize(mode, q.Services, q.EndpointsPerService)
	}
	size, ok := q.Composition.Modes[mode]
	if !ok {
		return Size{}, fmt.Errorf("%s: no %s payload", q.Composition.Source, mode)
	}
	return size, nil
}

// walkAtRandom: kube-proxy wrote the run's rules and the dataplane walks
// KUBE-SERVICES, so its measured latencies are at kube-proxy's positions,
// not the sweep's (kubeProxyOrderWarning).
func walkAtRandom(run *Run, dm *DataplaneModel) bool {
	return run.Source.Engine == scenario.EngineKubeProxy && dm.Lookup == LinearWalk
}

// repetitionsOf are the repetitions of point p (its dataplane, size and
// position) among all.
func repetitionsOf(all []results.Point, p results.Point) []results.Point {
	var reps []results.Point
	for _, r := range all {
		if r.Dataplane == p.Dataplane && r.Services == p.Services && r.Position == p.Position {
			reps = append(reps, r)
		}
	}
	return reps
}

// holdoutRows pairs one measured point with its prediction; the sizes'
// figures (syncs, memory) only at the last position, where they are
// measured once per size. Latencies are left out when the rule walk's
// position was kube-proxy's (noWalk). reps are the point's repetitions,
// whose values give each measured median its interval.
func holdoutRows(p results.Point, pred Prediction, noWalk bool, reps []results.Point) []HoldoutRow {
	var rows []HoldoutRow
	add := func(figure string, e *Estimate, value func(results.Point) float64, target, factor float64) {
		measured := value(p)
		if e == nil || !(measured > 0) {
			return
		}
		row := HoldoutRow{Dataplane: p.Dataplane, Services: p.Services, Figure: figure, Predicted: *e,
			Measured: measured, Error: e.Value/measured - 1, Target: target, Covered: e.Contains(measured), Extrapolation: factor}
		row.Loads, row.MeasuredLow, row.MeasuredHigh = measuredInterval(reps, value)
		rows = append(rows, row)
	}
	if !noWalk {
		add("p50 µs ("+p.Position+")", &pred.P50us.Total, func(r results.Point) float64 { return r.P50us }, HoldoutTargetP50, extrapolationOf(&pred.P50us, pred))
	}
	if pred.P99us != nil && !noWalk {
		add("p99 µs ("+p.Position+")", &pred.P99us.Total, func(r results.Point) float64 { return r.P99us }, HoldoutTargetP99, pred.Extrapolation)
	}
	if p.Position != PositionLast {
		return rows
	}
	// The lab times CPU per connection with a batch to the last Service
	// (copied onto every position's point): checked there only.
	if c := pred.CPUusPerConn; c != nil && !noWalk {
		add("CPU µs per connection", &c.Total, func(r results.Point) float64 { return r.CPUusPerConn }, 0, extrapolationOf(c, pred))
	}
	if s := pred.SyncFull; s != nil {
		add("full sync s", &s.Seconds, func(r results.Point) float64 { return r.SyncFullS }, HoldoutTargetSync, s.Extrapolation)
	}
	if s := pred.SyncIncremental; s != nil {
		add("incremental sync s", &s.Seconds, func(r results.Point) float64 { return r.SyncIncrementalS }, 0, s.Extrapolation)
	}
	add("kernel memory MB", pred.KernelMemMB, func(r results.Point) float64 { return float64(r.KernelMemBytes) / 1e6 }, 0, pred.Extrapolation)
	return rows
}

// extrapolationOf is c's factor beyond the calibration, or the
// prediction's where c has none of its own.
func extrapolationOf(c *CostPrediction, pred Prediction) float64 {
	if c.Extrapolation > 0 {
		return c.Extrapolation
	}
	return pred.Extrapolation
}

// measuredInterval is how many of reps measured the value (0 is not
// measured) and the 95% interval of their median; 0, 0 when too few.
func measuredInterval(reps []results.Point, value func(results.Point) float64) (loads int, lo, hi float64) {
	var values []float64
	for _, r := range reps {
		if v := value(r); v > 0 {
			values = append(values, v)
		}
	}
	if _, lo, hi, ok := stats.MedianInterval(values, measuredConfidence); ok {
		return len(values), lo, hi
	}
	return len(values), 0, 0
}

// measuredConfidence is the confidence of a measured median's interval.
const measuredConfidence = 0.95

// WriteHoldoutMarkdown prints the rows as a Markdown table.
func WriteHoldoutMarkdown(w io.Writer, rows []HoldoutRow) error {
	fmt.Fprintln(w, "| dataplane | N | figure | predicted [95%] | measured | error | target | within | covered | ×calibration |")
	fmt.Fprintln(w, "| --- | --: | --- | --- | --: | --: | --: | --- | --- | --: |")
	for _, r := range rows {
		target := "—"
		if r.Target > 0 {
			target = fmt.Sprintf("±%.0f%%", r.Target*100)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %+.1f%% | %s | %s | %s | %s |\n", r.Dataplane, r.Services, r.Figure,
			EstimateText(&r.Predicted), measuredText(r), r.Error*100, target, withinText(r), yesNo(r.Covered), planNumber(r.Extrapolation))
	}
	return nil
}

// measuredText is the measured median with, where its loads give one, its
// 95% interval.
func measuredText(r HoldoutRow) string {
	if r.MeasuredHigh == 0 {
		return planNumber(r.Measured)
	}
	return fmt.Sprintf("%s [%s, %s]", planNumber(r.Measured), planNumber(r.MeasuredLow), planNumber(r.MeasuredHigh))
}

// withinText is the within column: a dagger marks a measurement whose own
// interval reaches past the target (not Decided).
func withinText(r HoldoutRow) string {
	if !r.Decided() {
		return yesNo(r.Within()) + " †"
	}
	return yesNo(r.Within())
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// HoldoutSummary counts the rows with a target that meet it and the rows
// whose interval covers the measurement.
func HoldoutSummary(rows []HoldoutRow) string {
	var targeted, within, covered, undecided int
	for _, r := range rows {
		if r.Target > 0 {
			targeted++
			if r.Within() {
				within++
			}
			if !r.Decided() {
				undecided++
			}
		}
		if r.Covered {
			covered++
		}
	}
	text := fmt.Sprintf("%d of %d targeted figures within target; %d of %d intervals cover the measurement", within, targeted, covered, len(rows))
	if undecided > 0 {
		text += fmt.Sprintf("; † %d measured less surely than their target (the 95%% interval of the loads' median reaches past it)", undecided)
	}
	return text
}

// WriteHoldoutWarnings lists the rows' warnings under the table, each
// once: what `svclab plan` would have said beside the same figures.
func WriteHoldoutWarnings(w io.Writer, rows []HoldoutRow) {
	writeWarningList(w, "the predictions' warnings:\n", HoldoutWarnings(rows))
}

// HoldoutWarnings are the rows' warnings, each once, in the order they
// first appear.
func HoldoutWarnings(rows []HoldoutRow) []string {
	var out []string
	for _, r := range rows {
		for _, w := range r.Warnings {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// ProbesText says which probes of the run a holdout keeps beside the
// points of N ≤ MaxN (they are the calibration's, whatever their size):
// "" when there are none.
func ProbesText(run *Run) string {
	var parts []string
	if sizes := probeSizes(run.WalkProbes); len(sizes) > 0 {
		parts = append(parts, "walk probes at "+sizes+" services (the rule walk past the calibrated sizes)")
	}
	if sizes := probeSizes(timedProbes(run.SyncProbes)); len(sizes) > 0 {
		parts = append(parts, "sync probes at "+sizes+" services (full syncs: their ×calibration is from the largest)")
	}
	if sizes := probeSizes(uniformProbes(run.SyncProbes)); len(sizes) > 0 {
		parts = append(parts, "lookup probes at "+sizes+" services (a map lookup's uniform p50: its ×calibration is from the largest)")
	}
	if dump := newChainDumpPrice(run.ChainDumpWalk); dump != nil {
		parts = append(parts, "chain dump walk timed at "+dumpLengths(dump)+" chains, packed and spread (nftables' incremental sync)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "with the run's " + strings.Join(parts, " and ")
}

// dumpLengths lists the chains the dump walk was timed at, comma-separated.
func dumpLengths(p *ChainDumpPrice) string {
	parts := make([]string, len(p.Packed))
	for i, s := range p.Packed {
		parts[i] = strconv.Itoa(s.Chains)
	}
	return strings.Join(parts, ", ")
}

// probeSizes lists the probes' distinct sizes in order, comma-separated.
func probeSizes(probes []results.Point) string {
	var sizes []int
	for _, p := range probes {
		if !slices.Contains(sizes, p.Services) {
			sizes = append(sizes, p.Services)
		}
	}
	slices.Sort(sizes)
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// timedProbes are the sync probes that timed a full sync (a lookup probe
// loaded once, sweep.lookupProbe, did not).
func timedProbes(probes []results.Point) []results.Point {
	return slices.DeleteFunc(slices.Clone(probes), func(p results.Point) bool { return !(p.SyncFullS > 0) })
}

// uniformProbes are the probes that measured the uniform position (lab/
// sweep's lookup probes).
func uniformProbes(probes []results.Point) []results.Point {
	var out []results.Point
	for _, p := range probes {
		if p.Position == PositionUniform && p.P50us > 0 {
			out = append(out, p)
		}
	}
	return out
}
