// Package trace predicts what the kernel does with the first packet of a
// connection, given a ruleset: which endpoint it is DNATed to and with what
// probability, whether it is accepted, dropped or rejected, whether it is
// masqueraded, and how many rules the kernel evaluates on the way.
//
// The iptables tracer (NewIPTablesTracer, TraceIPTables) compiles a parsed
// dump (package sim/iptables) once into an indexed form and then walks
// packets through nat PREROUTING or OUTPUT, the filter chains and nat
// POSTROUTING, following jumps, gotos and RETURN, evaluating the matches
// kube-proxy uses, and forking at every "statistic --mode random" rule so
// that every endpoint is reached with its exact probability, both as
// written and as the kernel applies it (a 31-bit fixed-point threshold).
//
// The package is pure and deterministic: it never touches the kernel.
package trace
