// Package compare compares two svclab runs the way benchstat compares two
// sets of benchmark results, and turns the comparison into a CI verdict.
//
// A Run is loaded from a run directory or a results.jsonl file (Load). For
// every metric and every point present in both runs (a sweep point is a
// dataplane × services × position; a fairness point a dataplane × service),
// the samples are the per-repetition values of results.jsonl. Compare gives
// each side's median with a 95% interval, the change of the median in
// percent and the two-sided Mann-Whitney U p-value (sim/stats, built on
// golang.org/x/perf/benchmath); a change whose p-value exceeds alpha is
// reported as "~". It warns when samples are too few, when the two
// environments differ (kernel, CPU, iptables and nft versions, guest kernel,
// svclab version) and when points are present on one side only.
//
// Points of different dataplanes can be compared too (Options.BaseDataplane
// and Options.NewDataplane): each side is restricted to its dataplane and
// points are matched on services and position.
//
// Gate applies per-metric thresholds to a Result: a metric regresses when its
// change is significant, in the worse direction, and beyond its threshold;
// significance is corrected for the many comparisons of a run with the
// Benjamini-Hochberg procedure unless CorrectionNone is asked for.
// WriteText, WriteCSV, WriteJSON and WriteHTML render a Result; WriteBench
// writes a run in the Go benchmark format that stock benchstat reads.
//
// The package is pure userspace code: it reads files and writes to
// io.Writers, nothing else.
package compare
