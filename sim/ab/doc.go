// Package ab decides an A/B run: a scenario measured for a base side and a
// new side, repetition by repetition in a random order on one machine
// (lab/abrun runs them). Repetition i of the two sides forms a pair; each
// metric at each point is compared through the pairs' ratios new/base
// (stats.PairedInterval: the log-ratio's Hodges-Lehmann estimate with its
// Wilcoxon signed-rank interval), so the machine's drift, which moves both
// values of a pair, cancels.
//
// Only a small set of primary comparisons is gated (Primary: by default
// first-packet p50 latency and full sync time at the largest service count
// of each dataplane, or the scenario's gate: list), so the
// Benjamini-Hochberg correction runs over a handful of comparisons; every
// other metric and point is reported, not gated. The verdict is svclab
// gate's: REGRESSION, PASS (every primary interval excludes a change beyond
// its threshold) or INCONCLUSIVE (with the repetitions that would decide).
package ab
