package iptables

import (
	"fmt"
	"slices"
	"strings"
)

// NormalizeDump returns d in a normal form in which a restore input and the
// iptables-save output of the same rules are equal: tables by name; chains
// by name, leaving out deleted chains and built-in chains that have no rules
// and an ACCEPT policy (restore input does not mention them, save output
// always does); then each chain's rules through Normalize, in order.
func NormalizeDump(d *Dump) string {
	var b strings.Builder
	tables := slices.Clone(d.Tables)
	slices.SortFunc(tables, func(x, y *Table) int { return strings.Compare(x.Name, y.Name) })
	for _, t := range tables {
		chains := normalChains(t)
		fmt.Fprintf(&b, "*%s\n", t.Name)
		for _, c := range chains {
			fmt.Fprintf(&b, ":%s %s\n", c.Name, c.Policy)
		}
		for _, c := range chains {
			for _, r := range c.Rules {
				b.WriteString(Normalize(r))
				b.WriteByte('\n')
			}
		}
		b.WriteString("COMMIT\n")
	}
	return b.String()
}

func normalChains(t *Table) []*Chain {
	var out []*Chain
	for _, c := range t.Chains {
		implicit := IsBuiltinChain(t.Name, c.Name) && len(c.Rules) == 0 && c.Policy == "ACCEPT"
		if !c.Deleted && !implicit {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(x, y *Chain) int { return strings.Compare(x.Name, y.Name) })
	return out
}
