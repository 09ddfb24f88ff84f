// Package route is svclab's one routing oracle: where a connection to a
// Service goes, and what source address its endpoint sees, for a target (a
// ClusterIP, a NodePort on a node address, a load-balancer IP, an external
// IP) and a path (from a pod, from the node itself, from an external client
// inside or outside the source ranges, a pod to its own service).
//
// Nothing here restates kube-proxy's semantics. An Oracle renders the model
// with svclab's renderer of the kube-proxy mode (sim/render/iptables,
// nftables, ipvs), loads the payload as the kernel tools would (sim/iptables,
// sim/nftables, sim/ipvs) and traces each query's first packet through it
// (sim/analyze over sim/trace): the endpoints the rules DNAT to, with their
// probabilities, those the filter chains let through, and whether the packet
// is masqueraded. Rendering and compiling happen once per model and mode
// (New); each query is one trace. FromRules builds an Oracle over rules
// that were loaded elsewhere, such as a fake dataplane's validated state.
//
// eBPF dataplanes replace kube-proxy and are held to its semantics: their
// answers are the iptables mode's (ModeOf).
package route
