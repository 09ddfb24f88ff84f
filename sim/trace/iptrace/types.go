package iptrace

import (
	"net/netip"

	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
)

// Options tune a tracer.
type Options struct {
	// LocalAddrs are the node's own addresses, for "-m addrtype --src-type
	// LOCAL" and "--dst-type LOCAL" and to route DNATed packets to INPUT.
	// Loopback addresses are always local.
	LocalAddrs []netip.Addr
	// RecentHits names recent lists (xt_recent) that already hold the
	// packet's source, to trace a later packet of a ClientIP-affinity
	// client. By default every list is empty, as for a first packet.
	RecentHits []string
	// IPSets are the node's ipsets (`ipset save`), for -m set; without
	// them a --match-set is undecided.
	IPSets ipvs.IPSets
	// MaxBranches caps the number of forks (statistic rules and undecided
	// matches) followed per packet (default 4096).
	MaxBranches int
	// SkipPaths leaves Trace.Path and Endpoint.Path empty, for bulk
	// simulation where endpoints, probabilities, verdicts and rule counts
	// are all that matter (on the 10,000-service benchmark it saves about
	// a fifth of a trace).
	SkipPaths bool
}

// Verdict is the fate of a packet.
type Verdict string

// Verdicts.
const (
	Accept Verdict = "ACCEPT"
	Drop   Verdict = "DROP"
	Reject Verdict = "REJECT"
	// Unknown: the outcome depends on something the tracer cannot decide
	// (see Trace.Undecided and Trace.Flags).
	Unknown Verdict = "unknown"
)

// Step is one rule the tracer examined and whether it matched. The rule's
// table, chain, position and line are read through its methods: a Step
// refers to the compiled rule's template, so a path costs 16 bytes a step
// and no string copies.
type Step struct {
	tmpl    *stepTmpl
	Matched bool
}

// Table is the rule's table ("nat", "filter", ...).
func (s Step) Table() string { return tableNames[s.tmpl.table] }

// Chain is the rule's chain.
func (s Step) Chain() string { return *s.tmpl.chain }

// RuleIndex is the rule's 1-based position in its chain, as iptables -L
// --line-numbers prints it.
func (s Step) RuleIndex() int { return int(s.tmpl.index) }

// Rule is the rule line.
func (s Step) Rule() string { return s.tmpl.rule }

// Endpoint is one place the packet can be DNATed to, with the probability
// of getting there.
type Endpoint struct {
	Endpoint netip.AddrPort
	// Probability is the product of the nominal statistic probabilities
	// along the path (as written, e.g. 0.3333333333 × ...).
	Probability float64
	// Effective is the same product with the probabilities the kernel
	// applies: round(p·2^31)/2^31 for each --probability p.
	Effective      float64
	Verdict        Verdict // after the filter chains
	Masquerade     bool
	RulesEvaluated int // rules a linear kernel walk evaluates on this path
	Path           []Step
}

// Trace is the result of tracing one packet.
type Trace struct {
	// Path, Verdict, Masquerade, DNAT and RulesEvaluated describe the main
	// branch: the most probable one (the first of equals). Path shares
	// memory with that branch's entry in Endpoints, if it has one.
	Path       []Step
	Verdict    Verdict
	Masquerade bool
	DNAT       netip.AddrPort // zero when the main branch was not DNATed
	Mark       uint32         // the packet mark at the end of the main branch
	// Service is the service port ("ns3/svc3:p80") named in the comment of
	// the nat KUBE-SERVICES or KUBE-NODEPORTS rule the main branch matched,
	// "" when none matched.
	Service string
	// Endpoints lists every endpoint reached, in rule order, merged when
	// several branches reach the same one. Their probabilities sum to 1
	// unless some branches are not DNATed.
	Endpoints []Endpoint
	// RulesEvaluated counts the rules whose matches a linear kernel walk
	// evaluates on the main branch, including the rules the tracer's
	// destination index skipped. ExpectedRulesEvaluated is its mean over
	// all branches, weighted by their effective probabilities.
	RulesEvaluated         int
	ExpectedRulesEvaluated float64
	// AddrTypesEvaluated counts, of the main branch's RulesEvaluated, the
	// rules whose addrtype match (-m addrtype) the kernel evaluates: their
	// IP header part (-s, -d, -p) matched the packet. Each is a routing
	// lookup, many times a plain rule's cost (svclab plan prices them apart).
	AddrTypesEvaluated int
	// RecentChecked are the xt_recent lists the packet's --rcheck (and
	// --update, --remove) rules look up, one entry per rule evaluated on
	// any branch, in order, and RecentSet those its --set rules record it
	// in, once each (ClientIP affinity: every endpoint's list is checked
	// before the branches fork, then each branch sets its endpoint's). The kernel finds each list by name in
	// a list of all of them (recent_table_lookup), so their places in it
	// price a first packet (svclab plan).
	RecentChecked []string
	RecentSet     []string
	// Branches is the number of paths followed (1 + number of forks taken).
	Branches int
	// Flags are notes on the result: a split that is not uniform, ClientIP
	// affinity, matches the tracer could not decide, assumptions made.
	Flags []string
	// Undecided lists the matches the tracer could not decide on the way
	// ("filter FORWARD #3: -i cali+"). When the branches they open lead to
	// different outcomes the verdict is Unknown and Flags tell what each
	// assumption gives.
	Undecided []string

	scratch *scratch // TraceInto's working memory, kept for the next call
}

// Tracer traces packets through a compiled ruleset.
type Tracer interface {
	Trace(p trace.Packet) (Trace, error)
}

var _ Tracer = (*IPTablesTracer)(nil)
