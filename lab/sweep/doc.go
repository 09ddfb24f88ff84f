// Package sweep measures a sweep section of a scenario: for each dataplane
// and service count it plans (a point), it builds the point's own lab,
// loads the rules (timing kube-proxy's full and incremental sync), and in
// every repetition, visiting the points in a fresh seeded order, probes
// first-packet latency at each position, runs a throughput batch (and,
// when asked, the packet-rate knee), reading the machine's CPU time
// around it. lab/runner calls Run with the machine and the settings it
// derived from the scenario, as it calls lab/fairness for a fairness
// section; like it, the sweep asks only lab/machine's interfaces.
package sweep
