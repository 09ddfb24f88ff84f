// Package labfake is a simulated Machine for lab/runner: labs that need no
// kernel, dataplanes that validate what they are given, and traffic that
// lands on endpoints the way kube-proxy's rules would send it. With it, a
// whole fairness run and a whole sweep are tested as an ordinary user.
//
// The fake dataplanes render each model with the same renderers the real
// ones use and validate the payload: iptables payloads go through
// sim/iptables.Apply (a validating iptables-restore: a jump to a missing
// chain, a rule for an undeclared chain, a deleted chain still referenced
// are errors), nftables scripts through sim/nftables' parser. Connections
// to a ClusterIP pick one of the service's ready endpoints uniformly (what
// the statistic cascade, numgen and rr schedulers give), counted by the
// fake kernel and by the fake pod servers alike.
package labfake
