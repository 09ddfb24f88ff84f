// Package labfake is a simulated Machine for lab/runner: labs that need no
// kernel, dataplanes that validate what they are given, and traffic that
// lands on endpoints the way kube-proxy's rules would send it. With it, a
// whole fairness run and a whole sweep are tested as an ordinary user.
//
// The fake dataplanes render each model with the same renderers the real
// ones use and validate the payload: iptables payloads go through
// sim/iptables.Apply (a validating iptables-restore: a jump to a missing
// chain, a rule for an undeclared chain, a deleted chain still referenced
// are errors, and kube-proxy's jump rules are restored after each payload),
// nftables scripts through sim/nftables' parser, the IPVS payload's
// ipvsadm, ipset and iptables parts through sim/ipvs and sim/iptables.
// Connections are routed by tracing that validated state (sim/route over
// sim/trace): each lands on an endpoint the rules send it to, with the
// rules' probabilities, and its pod sees the source the rules leave it
// (the node's address when they masquerade). The eBPF fakes hold no rules;
// they are routed by the rules of the mode that answers for them
// (route.ModeOf). Every connection is counted by the fake kernel and by
// the fake pod servers alike.
package labfake
