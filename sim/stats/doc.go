// Package stats holds the statistics svclab reports: how fairly a service
// spreads traffic over its endpoints, whether each kube-proxy `statistic`
// rule takes the share it was written for, how latency grows with the
// number of services, benchstat-style summaries and A/B comparisons, and
// latency percentiles. It is pure, deterministic Go: no system calls, no
// network, no randomness. Every result type encodes as JSON without NaN or
// infinities, so runs can be stored and compared later.
//
// # Fairness of an endpoint split
//
// Fairness takes per-endpoint counts (connections seen by each server, or
// packets counted by each DNAT rule) and the split the service should give
// (nil for uniform). Pearson's chi-square goodness-of-fit test gives P, the
// chance of a deviation at least this large if the dataplane really drew
// endpoints with the expected probabilities: p < 0.01 says the split is not
// the expected one; a large p says only that the data cannot tell it apart
// (with 100 connections a 45/55 split is still "fair"). Each endpoint's
// share carries a 95% Wilson score interval, which says how far the true
// share may be from the measured one. Jain's index (1 = perfectly even, 1/n =
// one endpoint takes everything) and the max/min share ratio summarise the
// imbalance itself, independent of how many connections were made.
//
// # The statistic cascade
//
// kube-proxy's iptables mode picks among n endpoints with rules of
// probability 1/n, 1/(n-1), ..., 1/2 and a last rule that takes the rest. A
// rule only sees packets that earlier rules let through, so Cascade compares
// each rule's conditional share (packets it took / packets that reached it)
// with its probability, with a Wilson interval and an exact two-sided
// binomial p-value (BinomialTest). A small p on one rule points at that rule
// (for example a probability printed with too few digits), where the overall
// Fairness test only says something is off.
//
// # Latency against service count
//
// LinearFit fits latency = Intercept + Slope·services by least squares. The
// slope is the cost of one more service in front of the one measured (ns
// per service for iptables' linear KUBE-SERVICES scan, near 0 for nftables
// and IPVS maps); its 95% interval from Student's t with N-2 degrees of
// freedom says whether that cost is distinguishable from zero or from
// another dataplane's. R² near 1 says a line explains the data; a low R²
// says noise or a non-linear effect dominates. Predict gives the line's
// value at any service count with a 95% confidence interval for the mean
// latency there (not for one single measurement).
//
// # Summaries and comparisons
//
// Summarize and Compare follow benchstat (golang.org/x/perf/benchmath,
// AssumeNothing), because timings on a shared machine are not normally
// distributed: the centre is the median, its interval comes from order
// statistics, and two sets of runs are compared with the Mann-Whitney U
// test. Compare's Significant (P <= alpha) is benchstat's delta rather than
// "~"; about 1 comparison in 20 is falsely significant at alpha 0.05. Too few
// samples give warnings, not errors: fewer than 6 values have no finite 95%
// interval, and fewer than 4 per side can never be significant at 0.05. Use
// at least 10 interleaved repetitions.
//
// # Latency percentiles
//
// LatencyHistogram wraps an HdrHistogram that keeps 3 significant digits
// from 1µs to 60s in constant memory, so a run can record millions of
// connect times and still answer p50, p99 and p99.9 to 0.1%. Histograms from
// several workers Merge exactly, and encode as JSON in the standard
// compressed HdrHistogram form, a few hundred bytes per run.
package stats
