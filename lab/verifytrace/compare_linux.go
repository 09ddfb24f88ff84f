package verifytrace

import (
	"fmt"
	"maps"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace/iptrace"
)

// ruleID names a rule as "table chain #n".
type ruleID string

func idOf(table, chain string, n int) ruleID {
	return ruleID(fmt.Sprintf("%s %s #%d", table, chain, n))
}

// counters are a save's packet counters: rules, and built-in chain
// policies (n = 0).
type counters map[ruleID]uint64

// snapshot is a parsed iptables-save -c.
type snapshot struct {
	counts  counters
	targets map[ruleID]string // rule → target; policy → "policy ACCEPT|DROP"
}

func parseSnapshot(text []byte) (snapshot, error) {
	d, err := iptables.ParseString(string(text))
	if err != nil {
		return snapshot{}, fmt.Errorf("parse iptables-legacy-save -c: %w", err)
	}
	s := snapshot{counts: counters{}, targets: map[ruleID]string{}}
	for _, t := range d.Tables {
		for _, c := range t.Chains {
			if iptables.IsBuiltinChain(t.Name, c.Name) {
				id := idOf(t.Name, c.Name, 0)
				s.counts[id], s.targets[id] = c.Counters.Packets, "policy "+c.Policy
			}
			for i, r := range c.Rules {
				id := idOf(t.Name, c.Name, i+1)
				if r.Counters != nil {
					s.counts[id] = r.Counters.Packets
				}
				s.targets[id] = r.Target
			}
		}
	}
	return s, nil
}

// kernelOutcome is what the counters say one packet did.
type kernelOutcome struct {
	rules   counters // rule hits (policies excluded)
	verdict iptrace.Verdict
}

func outcomeOf(before, after snapshot) kernelOutcome {
	o := kernelOutcome{rules: counters{}, verdict: iptrace.Accept}
	for id, n := range after.counts {
		d := n - before.counts[id]
		if d == 0 {
			continue
		}
		switch t := after.targets[id]; {
		case strings.HasPrefix(t, "policy "):
			if t == "policy DROP" {
				o.verdict = iptrace.Drop
			}
			continue
		case t == "DROP":
			o.verdict = iptrace.Drop
		case t == "REJECT":
			o.verdict = iptrace.Reject
		}
		o.rules[id] = d
	}
	return o
}

func (o kernelOutcome) String() string {
	var ids []string
	for id, n := range o.rules {
		ids = append(ids, fmt.Sprintf("%s×%d", id, n))
	}
	return fmt.Sprintf("%s via %s", o.verdict, strings.Join(ids, ", "))
}

// candidate is one branch the tracer predicts.
type candidate struct {
	rules   counters
	verdict iptrace.Verdict
	dnat    netip.AddrPort
}

func candidates(tr iptrace.Trace) []candidate {
	out := []candidate{pathCandidate(tr.Path, tr.Verdict, tr.DNAT)}
	for _, e := range tr.Endpoints {
		out = append(out, pathCandidate(e.Path, e.Verdict, e.Endpoint))
	}
	return out
}

func pathCandidate(path []iptrace.Step, v iptrace.Verdict, dnat netip.AddrPort) candidate {
	c := candidate{rules: counters{}, verdict: v, dnat: dnat}
	for _, s := range path {
		if s.Matched {
			c.rules[idOf(s.Table(), s.Chain(), s.RuleIndex())]++
		}
	}
	return c
}

// agrees reports whether the kernel took one of the predicted branches.
// With undecided matches on the way the paths may differ in those rules,
// so only the verdict is compared.
func agrees(tr iptrace.Trace, k kernelOutcome) bool {
	for _, c := range candidates(tr) {
		if c.verdict == k.verdict && (len(tr.Undecided) > 0 || maps.Equal(c.rules, k.rules)) {
			return true
		}
	}
	return false
}
