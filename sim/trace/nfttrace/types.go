package nfttrace

import (
	"net/netip"
	"time"
)

// Options describe the node the ruleset runs on.
type Options struct {
	// LocalAddrs are the node's own addresses, for "fib … type local" and
	// the routing decision; 127.0.0.0/8 is always local.
	LocalAddrs []netip.Addr
	// SkipPath leaves Outcome.Path and Result.Path empty, for bulk tracing
	// where only endpoints, probabilities and costs matter.
	SkipPath bool
	// External are base chains another tracer walks (iptables-nft's
	// tables), hooked in among the ruleset's by priority; at equal
	// priority they come after the ruleset's.
	External []External
}

// Step is one rule the packet matched or that decided its fate.
type Step struct {
	Hook  string // netfilter hook, e.g. "prerouting"
	Table string // family and name, e.g. "inet filter"
	Chain string
	Index int // rule position in the chain, from 0
	Line  int // line of the rule in the parsed input
	Rule  string
	Note  string // what happened, e.g. "vmap @service-ips hit", "numgen 1/2"
}

// Outcome is one way the packet can go, with its probability.
type Outcome struct {
	Probability float64
	// Effective is the probability as the kernel applies it (see
	// NumgenEffective): 1/N is not exact unless N is a power of two.
	Effective float64
	Verdict   string // "accept", "drop", "reject" or "unknown" (see Unknown)
	// Unknown says why the verdict is unknown: a statement or match the
	// tracer cannot decide.
	Unknown    string
	Endpoint   netip.AddrPort // where DNAT sent it; invalid if not DNATed
	Masquerade bool
	Path       []Step
	// RulesEvaluated counts every rule whose evaluation started;
	// MapLookups counts verdict-map lookups (named or anonymous).
	RulesEvaluated int
	MapLookups     int
	// AffinitySet is the ClientIP affinity set the path records the
	// client in ("update @set { ip saddr }"), if any.
	AffinitySet     string
	AffinityTimeout time.Duration
	// Service is the service port ("ns/name:port") an External chain on
	// the way named (iptables-nft's KUBE-SERVICES comments), "" if none;
	// kube-proxy's own nftables chains name it in their chain names.
	Service string
}

// Endpoint is a DNAT destination and the chance a new connection gets it.
type Endpoint struct {
	Addr        netip.AddrPort
	Probability float64
	Effective   float64 // as the kernel applies it
}

// Result is the trace of one packet.
type Result struct {
	Outcomes []Outcome
	// Endpoints merges the outcomes' DNAT destinations, in first-seen order.
	Endpoints []Endpoint
	// Verdict is the outcomes' verdict when they agree, "unknown" when one
	// is unknown, else "mixed".
	Verdict string
	// Undecided lists what made outcomes unknown.
	Undecided []string
	// Masquerade is true when any outcome is masqueraded.
	Masquerade bool
	// Path is the part of the path every outcome shares (up to the fork).
	Path []Step
	// RulesEvaluated and MapLookups are the largest over the outcomes.
	RulesEvaluated int
	MapLookups     int
	// Affinity explains ClientIP session affinity when the path meets it.
	Affinity string
}
