// Package verifytrace checks the iptables tracer (sim/trace/iptrace)
// against the kernel: it loads a dump into a scratch node namespace, sends
// random packets at it from a client namespace and from the node itself,
// and compares, packet by packet, which rules' counters moved with the path
// the tracer predicts. Every packet the tracer gives a verdict for must
// agree with the kernel; the others must be "unknown".
//
// For an nftables ruleset the kernel's own trace is the oracle: a table
// sets nftrace on every packet, `nft monitor trace` reports each rule that
// matched, and a marker packet after each test packet shows its trace is
// complete. A ruleset for an IPv6 node (header family=ip6, e.g.
// testdata/kube-proxy-nftables-ipv6.nft, an ip6 table) is traced with
// IPv6 packets: the trace table is ip6, the markers go to ::1, and a
// packet's flow label is its id.
//
// Packets carry a wrong L4 checksum and conntrack is told not to check
// it, so no reply (RST, ICMP error, REJECT's answer) adds traffic of its
// own. The namespaces are named svl-vt-<pid>-<n>-node and -client and
// removed at the end. The node namespace uses iptables-legacy (per
// namespace, and its save is fast enough to read after every packet).
package verifytrace
