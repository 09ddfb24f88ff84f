package iptrace

import (
	"fmt"
	"strings"
)

// String renders t for people: the main path with a mark on each matched
// rule, then the endpoints and flags.
func (t Trace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict %s", t.Verdict)
	if t.DNAT.IsValid() {
		fmt.Fprintf(&b, ", DNAT to %v", t.DNAT)
	}
	if t.Masquerade {
		b.WriteString(", masqueraded")
	}
	if t.Service != "" {
		fmt.Fprintf(&b, ", service %s", t.Service)
	}
	fmt.Fprintf(&b, "; %d rules evaluated (%.2f expected over %d branches)\n", t.RulesEvaluated, t.ExpectedRulesEvaluated, t.Branches)
	for _, s := range t.Path {
		mark := " "
		if s.Matched {
			mark = "*"
		}
		fmt.Fprintf(&b, "  %s %s %s #%d %s\n", mark, s.Table(), s.Chain(), s.RuleIndex(), s.Rule())
	}
	for _, e := range t.Endpoints {
		fmt.Fprintf(&b, "endpoint %v p=%.12g effective=%.12g %s masquerade=%v rules=%d\n",
			e.Endpoint, e.Probability, e.Effective, e.Verdict, e.Masquerade, e.RulesEvaluated)
	}
	for _, f := range t.Flags {
		fmt.Fprintf(&b, "flag: %s\n", f)
	}
	return b.String()
}
