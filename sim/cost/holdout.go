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
}

// Within says whether the row meets its target (rows without one do).
func (r HoldoutRow) Within() bool { return r.Target == 0 || math.Abs(r.Error) <= r.Target }

// Holdout calibrates on run's points with N ≤ opts.MaxN and predicts every
// measured point above it: first-packet p50 and p99 at the last and the
// uniform position, full and incremental sync, kernel memory.
func Holdout(run *Run, opts Options) ([]HoldoutRow, *Model, error) {
	if opts.MaxN <= 0 {
		return nil, nil, fmt.Errorf("holdout: give the largest calibration N (MaxN > 0)")
	}
	m, err := CalibrateRun(run, opts)
	if err != nil {
		return nil, nil, err
	}
	var rows []HoldoutRow
	for _, p := range run.Points {
		dm, ok := m.Dataplane(p.Dataplane)
		if !ok || p.Services <= opts.MaxN || (p.Position != PositionLast && p.Position != PositionUniform) {
			continue
		}
		q := Query{Services: p.Services, EndpointsPerService: 1, Position: p.Position}
		if err := q.Validate(); err != nil {
			return nil, nil, err
		}
		size, err := RulesetSize(dm.Mode, p.Services, 1)
		if err != nil {
			return nil, nil, err
		}
		size.Rules = pointRules(dm.Mode, p) // what the lab loaded, as calibration counted it
		pred := m.predictOne(dm, q, size)
		rows = append(rows, holdoutRows(p, pred, walkAtRandom(run, dm))...)
	}
	return rows, m, nil
}

// walkAtRandom: kube-proxy wrote the run's rules and the dataplane walks
// KUBE-SERVICES, so its measured latencies are at kube-proxy's positions,
// not the sweep's (kubeProxyOrderWarning).
func walkAtRandom(run *Run, dm *DataplaneModel) bool {
	return run.Source.Engine == scenario.EngineKubeProxy && dm.Lookup == LinearWalk
}

// holdoutRows pairs one measured point with its prediction; the sizes'
// figures (syncs, memory) only at the last position, where they are
// measured once per size. Latencies are left out when the rule walk's
// position was kube-proxy's (noWalk).
func holdoutRows(p results.Point, pred Prediction, noWalk bool) []HoldoutRow {
	var rows []HoldoutRow
	add := func(figure string, e *Estimate, measured, target, factor float64) {
		if e == nil || !(measured > 0) {
			return
		}
		rows = append(rows, HoldoutRow{Dataplane: p.Dataplane, Services: p.Services, Figure: figure, Predicted: *e,
			Measured: measured, Error: e.Value/measured - 1, Target: target, Covered: e.Contains(measured), Extrapolation: factor})
	}
	if !noWalk {
		add("p50 µs ("+p.Position+")", &pred.P50us.Total, p.P50us, HoldoutTargetP50, pred.Extrapolation)
	}
	if pred.P99us != nil && !noWalk {
		add("p99 µs ("+p.Position+")", &pred.P99us.Total, p.P99us, HoldoutTargetP99, pred.Extrapolation)
	}
	if p.Position != PositionLast {
		return rows
	}
	if s := pred.SyncFull; s != nil {
		add("full sync s", &s.Seconds, p.SyncFullS, HoldoutTargetSync, s.Extrapolation)
	}
	if s := pred.SyncIncremental; s != nil {
		add("incremental sync s", &s.Seconds, p.SyncIncrementalS, 0, s.Extrapolation)
	}
	add("kernel memory MB", pred.KernelMemMB, float64(p.KernelMemBytes)/1e6, 0, pred.Extrapolation)
	return rows
}

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
			EstimateText(&r.Predicted), planNumber(r.Measured), r.Error*100, target, yesNo(r.Within()), yesNo(r.Covered), planNumber(r.Extrapolation))
	}
	return nil
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
	var targeted, within, covered int
	for _, r := range rows {
		if r.Target > 0 {
			targeted++
			if r.Within() {
				within++
			}
		}
		if r.Covered {
			covered++
		}
	}
	return strings.TrimSpace(fmt.Sprintf("%d of %d targeted figures within target; %d of %d intervals cover the measurement",
		within, targeted, covered, len(rows)))
}

// ProbesText says which probes of the run a holdout keeps beside the
// points of N ≤ MaxN (they are the calibration's, whatever their size):
// "" when there are none.
func ProbesText(run *Run) string {
	var parts []string
	if sizes := probeSizes(run.WalkProbes); len(sizes) > 0 {
		parts = append(parts, "walk probes at "+sizes+" services (the rule walk past the calibrated sizes)")
	}
	if sizes := probeSizes(run.SyncProbes); len(sizes) > 0 {
		parts = append(parts, "sync probes at "+sizes+" services (full syncs: their ×calibration is from the largest)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "with the run's " + strings.Join(parts, " and ")
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
