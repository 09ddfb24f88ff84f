package analyze

import (
	"fmt"
	"net/netip"
	"unicode/utf8"

	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
)

// Options are what the user knows about the node, for matches the rules
// alone cannot decide.
type Options struct {
	Local     []netip.Addr // the node's addresses
	IPSets    ipvs.IPSets  // `ipset save`; nil when not given
	SkipPaths bool         // drop the rule-by-rule path, for bulk use
}

// Endpoint is a reachable endpoint and its probability.
type Endpoint struct {
	Endpoint    string  `json:"endpoint"`             // "IP:port"
	Probability float64 `json:"probability"`          // as the rules write it
	Effective   float64 `json:"effective"`            // as the kernel applies it
	Verdict     string  `json:"verdict,omitempty"`    // after the filter chains
	Masquerade  bool    `json:"masquerade,omitempty"` // SNAT on the way out
	Rules       int     `json:"rules_evaluated"`      // on this branch
}

// Result is one traced packet, the same shape for every kind of dump.
type Result struct {
	Dump           string     `json:"dump"` // iptables or nftables
	Packet         string     `json:"packet"`
	Service        string     `json:"service"` // "ns/name:port", "" when no service matched
	Verdict        string     `json:"verdict"`
	Masquerade     bool       `json:"masquerade"`
	Endpoints      []Endpoint `json:"endpoints"`
	RulesEvaluated int        `json:"rules_evaluated"`
	// AddrTypeMatches counts, of RulesEvaluated, the iptables rules whose
	// addrtype match the kernel evaluates (a routing lookup each).
	AddrTypeMatches int `json:"addrtype_matches,omitempty"`
	// RecentLookups counts the xt_recent lists the iptables rules look up
	// by name (ClientIP affinity: every endpoint's --rcheck, then one
	// --set); RecentChecked and RecentSet name them (iptrace's Trace).
	RecentLookups int      `json:"recent_lookups,omitempty"`
	RecentChecked []string `json:"-"`
	RecentSet     []string `json:"-"`
	MapLookups    int      `json:"map_lookups"`
	Path          []string `json:"path,omitempty"`
	Flags         []string `json:"flags,omitempty"`
	// Undecided lists the matches the tracer could not decide; with
	// verdict "unknown" their branches lead to different outcomes.
	Undecided []string `json:"undecided,omitempty"`
	// NoService is set when the dump has Services (kube-proxy's rules)
	// and the packet's destination matched none of them (a typo?). A dump
	// without Services (a host firewall) never sets it.
	NoService bool `json:"no_service,omitempty"`
}

// maxRuleText is the longest rule text a path quotes whole: a dump's
// comments can be megabytes long, and a trace prints a line per rule.
const maxRuleText = 1024

// clipRule is rule text for a path line: at most maxRuleText bytes (cut at
// a character boundary), then how long it was.
func clipRule(s string) string {
	if len(s) <= maxRuleText {
		return s
	}
	cut := maxRuleText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

func matched(m bool) string {
	if m {
		return "MATCH"
	}
	return "-    "
}

func describe(p trace.Packet) string {
	from := p.From
	if from == "" {
		from = "pod"
	}
	return fmt.Sprintf("%s %s → %s from %s", p.Proto, p.Src, netip.AddrPortFrom(p.Dst, p.DPort), from)
}
