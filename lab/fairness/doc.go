// Package fairness measures how a dataplane splits a service's connections
// over its endpoints: for each path a fairness section of a scenario names
// (from a pod, the node or an external client, to a ClusterIP, NodePort,
// LoadBalancer or external IP), sim/route says where the rules send the
// traffic; the lab's pod servers and the kernel's own counters say where it
// went, and sim/stats how fair the split was. lab/runner calls Run with the
// lab and the settings it derived from the scenario.
package fairness
