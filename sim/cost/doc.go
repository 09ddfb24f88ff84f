// Package cost is svclab's capacity-planning model: what N services with M
// endpoints each cost per dataplane, calibrated from a lab sweep.
//
// The model has one form for every per-connection cost (first-packet
// latency p50 and p99, CPU per connection):
//
//	cost = base + evaluations × cost per evaluation
//
// where evaluations is what a new connection's service lookup does. For
// iptables (legacy and nft) it is the KUBE-SERVICES rules the first packet
// walks: N for the last service, (N+1)/2 on average for a uniformly random
// one, 1 for the first. For nftables (verdict map) and IPVS (hash table)
// the lookup does not grow with N; the model is a constant, and the
// calibration's slope interval bounds how much it could grow anyway.
//
// Calibration fits these lines (sim/stats.LinearFit) to a sweep's `last`
// position points, where a first packet walks all N rules, and its
// `middle` points at (N+1)/2 rules (and, for p50 only, the `uniform`
// position's points at (N+1)/2 on average), using only points with
// N ≤ Options.MaxN. A rule walk's p50 for uniformly random services is
// that pooled line at (N+1)/2 rules (a map lookup keeps a uniform-only
// constant), and its p99 is the p50 at the position (for uniformly random
// services, at 99% of the walk) plus the calibration points' own median
// p99 − p50 (TailRatio): each point's tail comes from its own latency
// distribution and is mostly jitter of the same size at every N, so
// scheduler delays at one size widen the interval instead of tilting a
// second line, and the short walks of small N do not inflate it. CPU comes from the `last` points only: the sweep's
// throughput batch always targets the last service. Sync times (full and incremental) are fitted against
// the ruleset's size in rules, as a line when the line fits (R² ≥
// Options.MinR2) and otherwise as whichever of a power law or a quadratic
// fits better; every prediction says which form it used.
//
// Every prediction carries a 95% interval from the fit (stats.Predict for
// the whole cost, the slope interval for the part lookup adds; a map
// lookup's constant and a p99's excess over its p50 a prediction interval
// for one more calibration point, which is what a measurement at the
// predicted size is), the factor
// by which it extrapolates beyond the largest calibrated size, and
// warnings for poor fits. Ruleset sizes are exact: rule, chain and element
// counts from formulas pinned against the renderers, bytes from rendering
// the synthetic model (sampled and scaled above a size limit).
//
// A default calibration is embedded: calibration/default.json,
// default-meta.json and default-results.jsonl are byte copies of the
// recorded run results/sweep-full-default's summary.json, meta.json and
// results.jsonl (go:embed cannot reach outside the package). TestDefaultCalibrationIsTheRecordedRun fails when
// the copies and the recorded run differ; `go generate ./sim/cost` copies
// the recorded run again after it is re-recorded.
//
// AgreementTable is the "sim agrees with lab" check: calibrate on points
// with N ≤ 10,000 and compare the predicted p50 at the largest measured N
// with the measurement.
package cost
