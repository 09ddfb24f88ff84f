package metric

import "github.com/svclab/svclab/sim/results"

// catalog is every metric svclab records.
var catalog = []Metric{
	// p10 is read from the recorded histogram: the fastest tenth of the
	// connections, which a busy machine's scheduling delays least (svclab
	// ab gates on it).
	{Name: P10, Unit: "µs", Label: "connect latency p10 (µs)", BenchUnit: "p10-µs", NsPerUnit: 1e3, Direction: HigherIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return histogramQuantile(p, 0.1) }},
	{Name: P50, Unit: "µs", Label: "connect latency p50 (µs)", BenchUnit: "p50-µs", NsPerUnit: 1e3, Direction: HigherIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.P50us }, Fairness: func(f results.FairnessRun) float64 { return f.P50us }},
	{Name: P90, Unit: "µs", Label: "connect latency p90 (µs)", BenchUnit: "p90-µs", NsPerUnit: 1e3, Direction: HigherIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.P90us }},
	{Name: P99, Unit: "µs", Label: "connect latency p99 (µs)", BenchUnit: "p99-µs", NsPerUnit: 1e3, Direction: HigherIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.P99us }, Fairness: func(f results.FairnessRun) float64 { return f.P99us }},
	{Name: P999, Unit: "µs", Label: "connect latency p99.9 (µs)", BenchUnit: "p99.9-µs", NsPerUnit: 1e3, Direction: HigherIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.P999us }},
	{Name: Mean, Unit: "µs", Label: "connect latency mean (µs)", BenchUnit: "mean-µs", NsPerUnit: 1e3, Direction: HigherIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.MeanUs }},
	{Name: CPUPerConn, Unit: "µs", Label: "CPU time per new connection (µs)", BenchUnit: "cpu-µs/conn", NsPerUnit: 1e3, Direction: HigherIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.CPUusPerConn }},
	{Name: ConnPerSec, Unit: "conn/s", Label: "new connections per second", BenchUnit: "conn/s", NsPerUnit: 1, Direction: LowerIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.ConnPerSec }, Fairness: func(f results.FairnessRun) float64 { return f.ConnPerSec }},
	{Name: FlowsPerSec, Unit: "flows/s", Label: "flows per second", BenchUnit: "flows/s", NsPerUnit: 1, Direction: LowerIsWorse, ZeroIsMissing: true,
		Point: func(p results.Point) float64 { return p.FlowsPerSec }},
	{Name: SyncFull, Unit: "s", Label: "full sync (s)", BenchUnit: "sync-full-s", NsPerUnit: 1e9, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return p.SyncFullS }},
	// The full sync's CPU time in the tool that applied it: the sync's
	// work, which a busy machine's waiting does not inflate (svclab ab
	// gates on it; sync_full_s is the wall-clock time kube-proxy waits).
	{Name: SyncFullCPU, Unit: "s", Label: "full sync CPU time (s)", BenchUnit: "sync-full-cpu-s", NsPerUnit: 1e9, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return p.SyncFullCPUS }},
	{Name: SyncIncremental, Unit: "s", Label: "incremental sync (s)", BenchUnit: "sync-incremental-s", NsPerUnit: 1e9, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return p.SyncIncrementalS }},
	// The incremental sync's CPU time in the tool that applied it: with
	// sync_incremental_s it tells the tool's work from its waiting.
	{Name: SyncIncrementalCPU, Unit: "s", Label: "incremental sync CPU time (s)", BenchUnit: "sync-incremental-cpu-s", NsPerUnit: 1e9, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return p.SyncIncrementalCPUS }},
	// The user part of the two CPU times: the tool's own work (parsing,
	// building the rules), the rest being the kernel's taking them in.
	{Name: SyncFullUser, Unit: "s", Label: "full sync user CPU time (s)", BenchUnit: "sync-full-user-s", NsPerUnit: 1e9, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return p.SyncFullUserS }},
	{Name: SyncIncrementalUser, Unit: "s", Label: "incremental sync user CPU time (s)", BenchUnit: "sync-incremental-user-s", NsPerUnit: 1e9, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return p.SyncIncrementalUserS }},
	{Name: SyncBatch, Unit: "s", Label: "partial sync of a batch of changes (s)", BenchUnit: "sync-batch-s", NsPerUnit: 1e9, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return p.SyncBatchS }},
	{Name: Rules, Label: "rules", BenchUnit: "rules", NsPerUnit: 1, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return float64(p.Rules) }},
	{Name: Bytes, Unit: "bytes", Label: "rule-set size (bytes)", BenchUnit: "B", NsPerUnit: 1, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return float64(p.Bytes) }},
	{Name: Lines, Label: "rule-set size (lines)", BenchUnit: "lines", NsPerUnit: 1, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return float64(p.Lines) }},
	{Name: KernelMem, Unit: "bytes", Label: "kernel memory (bytes)", BenchUnit: "kernel-B", NsPerUnit: 1, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return float64(p.KernelMemBytes) }},
	{Name: RulesEvaluated, Label: "rules evaluated per first packet", BenchUnit: "rules-evaluated", NsPerUnit: 1, Direction: HigherIsWorse, ZeroIsMissing: true, Aggregation: OncePerPoint,
		Point: func(p results.Point) float64 { return float64(p.RulesEvaluated) }},
	// A chi-square p-value of 0 is a measurement, not a gap.
	{Name: ChiSquareP, Label: "chi-square p-value of the split", BenchUnit: "chi2-p", NsPerUnit: 1, Direction: LowerIsWorse,
		Fairness: func(f results.FairnessRun) float64 { return f.ChiSquareP }},
	{Name: Jain, Label: "Jain's fairness index", BenchUnit: "jain", NsPerUnit: 1, Direction: LowerIsWorse, ZeroIsMissing: true,
		Fairness: func(f results.FairnessRun) float64 { return f.Jain }},
	{Name: MaxMinRatio, Label: "most over least loaded endpoint", BenchUnit: "max/min", NsPerUnit: 1, Direction: HigherIsWorse, ZeroIsMissing: true,
		Fairness: func(f results.FairnessRun) float64 { return f.MaxMinRatio }},
}

// histogramQuantile is the point's latency quantile q in µs from its
// recorded histogram; 0 (not measured) when it has none.
func histogramQuantile(p results.Point, q float64) float64 {
	if p.Histogram == nil || p.Histogram.Count() == 0 {
		return 0
	}
	return float64(p.Histogram.Quantile(q).Nanoseconds()) / 1e3
}
