// Package metric is svclab's one catalog of measurements, like benchunit's
// in golang.org/x/perf: for each metric its name (the JSON field of the
// result records), unit, label, which direction is better, and how its
// repetitions are aggregated. report, plot, compare, gate, cost and the
// runner read metrics from here.
//
// It also holds the aggregation itself (Aggregate: per-repetition sweep
// records into one point per dataplane × services × position, with fits
// against services), so that a package that only needs medians does not
// import the plotting or reporting packages.
package metric
