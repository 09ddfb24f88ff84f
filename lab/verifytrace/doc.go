// Package verifytrace checks the iptables tracer (sim/trace/iptrace)
// against the kernel: it loads a dump into a scratch node namespace, sends
// random packets at it from a client namespace and from the node itself,
// and compares, packet by packet, which rules' counters moved with the path
// the tracer predicts. Every packet the tracer gives a verdict for must
// agree with the kernel; the others must be "unknown".
//
// The namespaces are named svl-vt-<pid>-<n>-node and -client and removed
// at the end. The node namespace uses iptables-legacy (per namespace, and
// its save is fast enough to read after every packet).
package verifytrace
