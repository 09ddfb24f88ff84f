// Package iptrace predicts what the kernel does with the first packet of a
// connection, given a ruleset: which endpoint it is DNATed to and with what
// probability, whether it is accepted, dropped or rejected, whether it is
// masqueraded, and how many rules the kernel evaluates on the way.
//
// The iptables tracer (NewIPTablesTracer, TraceIPTables) compiles a parsed
// dump (package sim/iptables) once into an indexed form and then walks
// packets through the hooks a forwarded or locally sent packet crosses:
//
//	from a pod:  nat PREROUTING, then filter FORWARD and nat POSTROUTING
//	             (or filter INPUT if the destination is a local address)
//	from the node: nat OUTPUT, filter OUTPUT, nat POSTROUTING
//
// following jumps, gotos and RETURN, and evaluating the matches kube-proxy
// uses: addresses and ports with negation, protocol, addrtype against the
// node's addresses, comment, mark (the tracer keeps the packet mark, so
// KUBE-MARK-MASQ and KUBE-POSTROUTING work), conntrack state (NEW, plus
// DNAT once DNATed), recent (--rcheck misses on a first packet) and
// nfacct. A match it cannot decide (-i, -o, ipset contents, unknown
// modules) makes the rule not match and is reported in Trace.Flags.
// The mangle and raw tables and nat INPUT are not walked. When the dump has
// no built-in chains (kube-proxy's restore input), kube-proxy's own jump
// rules into KUBE-SERVICES, KUBE-POSTROUTING, KUBE-FORWARD ... are assumed.
//
// At each "statistic --mode random --probability p" rule the walk forks: one
// branch takes the rule, the other goes on, so every endpoint is reached
// and its probability is the product along its path. Probabilities are
// reported as written (Probability) and as the kernel applies them
// (Effective): xt_statistic matches when a 31-bit random number is below
// lround(p·2^31), so the effective probability is round(p·2^31)/2^31.
//
// RulesEvaluated counts what a linear kernel walk evaluates, although the
// tracer itself skips rules that cannot match: long chains are indexed by
// destination address, which is what lets it trace hundreds of thousands of
// packets per second through 10,000 services.
//
// The package is pure and deterministic: it never touches the kernel.
package iptrace
