// Package iptrace predicts what the kernel does with a packet, given an
// iptables ruleset: which endpoint it is DNATed to and with what
// probability, whether it is accepted, dropped or rejected, whether it is
// masqueraded, and how many rules the kernel evaluates on the way.
//
// The tracer (NewIPTablesTracer, TraceIPTables) compiles a parsed dump
// (package sim/iptables; iptables-save, ip6tables-save or restore input)
// once into an indexed form and walks packets through every table in the
// kernel's hook order:
//
//	from a pod or another host: raw, mangle, nat PREROUTING; routing; then
//	  mangle, filter, security, nat INPUT (a local destination) or mangle,
//	  filter, security FORWARD and mangle, nat POSTROUTING
//	from a host process: raw, mangle, nat, filter, security OUTPUT; mangle,
//	  nat POSTROUTING; and to a local address back in on lo through raw and
//	  mangle PREROUTING and the INPUT chains
//
// with conntrack's effects: CT --notrack and established packets
// (trace.Packet.State) skip nat, marks set earlier are seen later, --ctstate is
// NEW (plus DNAT once DNATed), ESTABLISHED or UNTRACKED. It follows jumps,
// gotos and RETURN and evaluates addresses, ports, protocol, multiport,
// addrtype (Options.LocalAddrs), mark, conntrack state, tcp flags, recent,
// comment, -i/-o (trace.Packet.InIface/OutIface) and -m set (Options.IPSets).
//
// A match it cannot decide (an interface or ipset it was not told about,
// an unmodelled module) forks the walk: one branch assumes it matches, the
// other not. If every combination of assumptions gives the same outcomes
// the trace is decided and Trace.Undecided lists the matches; otherwise the
// verdict is Unknown and Trace.Flags say what each combination gives. A
// dump without a nat or filter table gives Unknown too. When the dump has
// no built-in chains (kube-proxy's restore input), kube-proxy's own jump
// rules are assumed and noted.
//
// At each "statistic --mode random --probability p" rule the walk forks:
// every endpoint is reached, its probability the product along its path,
// as written (Probability) and as the kernel applies it (Effective:
// xt_statistic matches when a 31-bit random number is below
// lround(p·2^31), so round(p·2^31)/2^31).
//
// RulesEvaluated counts what a linear kernel walk evaluates, although the
// tracer skips rules that cannot match: long chains are indexed by
// destination address. A stage whose rules look only at the protocol,
// ports, mark and conntrack state (filter FORWARD and nat POSTROUTING on
// most kube-proxy nodes) is walked once per distinct such packet and
// replayed afterwards (memo.go); on entering a service the rules of its
// chain and endpoint chains are loaded together (ahead.go). A path Step
// refers to its rule instead of copying its text. lab/verifytrace checks
// the tracer against the kernel packet by packet.
//
// The package is pure and deterministic: it never touches the kernel.
package iptrace
