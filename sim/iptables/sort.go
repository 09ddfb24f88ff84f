package iptables

import (
	"sort"
	"strings"
)

// Sort puts d into kube-proxy's canonical order (sortIPTablesRules in
// pkg/proxy/iptables/proxier_test.go), so output does not depend on the
// random order in which kube-proxy visits services:
//   - tables by name;
//   - chains: KUBE-NODEPORTS, KUBE-SERVICES, then other KUBE-* chains
//     alphabetically, then all other chains alphabetically;
//   - rules of KUBE-NODEPORTS (filter and nat) and of KUBE-SERVICES (filter
//     and nat) stable-sorted by the service name in their comment (the
//     comment up to its first space or colon), with nat KUBE-SERVICES's
//     "must be the last rule" rule kept last;
//   - every other chain keeps its rule order.
func Sort(d *Dump) {
	sort.SliceStable(d.Tables, func(i, j int) bool { return d.Tables[i].Name < d.Tables[j].Name })
	for _, t := range d.Tables {
		sort.SliceStable(t.Chains, func(i, j int) bool { return chainLess(t.Chains[i].Name, t.Chains[j].Name) })
		sortServiceRules(t)
	}
}

// Canonical parses text, sorts it with Sort and prints it with WriteTo.
// Rule counters are dropped, as kube-proxy's sort drops them.
func Canonical(text string) (string, error) {
	d, err := ParseString(text)
	if err != nil {
		return "", err
	}
	for _, t := range d.Tables {
		for _, c := range t.Chains {
			for _, r := range c.Rules {
				r.Counters = nil
			}
		}
	}
	Sort(d)
	return d.String(), nil
}

func chainLess(a, b string) bool {
	rank := func(n string) int {
		switch {
		case n == "KUBE-NODEPORTS":
			return 0
		case n == "KUBE-SERVICES":
			return 1
		case strings.HasPrefix(n, "KUBE-"):
			return 2
		}
		return 3
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return a < b
}

func sortServiceRules(t *Table) {
	if t.Name != "filter" && t.Name != "nat" {
		return
	}
	if c := t.Chain("KUBE-NODEPORTS"); c != nil {
		sort.SliceStable(c.Rules, func(i, j int) bool { return byServiceName(c.Rules[i], c.Rules[j]) })
	}
	c := t.Chain("KUBE-SERVICES")
	if c == nil {
		return
	}
	keepLast := t.Name == "nat"
	sort.SliceStable(c.Rules, func(i, j int) bool {
		if keepLast {
			if isLastRule(c.Rules[i]) {
				return false
			}
			if isLastRule(c.Rules[j]) {
				return true
			}
		}
		return byServiceName(c.Rules[i], c.Rules[j])
	})
}

// isLastRule reports whether r is nat KUBE-SERVICES's nodeports rule.
func isLastRule(r *Rule) bool {
	return r.HasComment && strings.Contains(r.Comment, "must be the last rule")
}

// byServiceName orders two rules by the service name in their comments;
// rules without a comment do not move relative to others.
func byServiceName(a, b *Rule) bool {
	if !a.HasComment || !b.HasComment {
		return false
	}
	return ServiceName(a.Comment) < ServiceName(b.Comment)
}

// ServiceName returns the service name at the start of a kube-proxy comment:
// the text up to the first space or colon ("ns1/svc1" for
// "ns1/svc1:p80 cluster IP").
func ServiceName(comment string) string {
	if i := strings.IndexAny(comment, " :"); i >= 0 {
		return comment[:i]
	}
	return comment
}
