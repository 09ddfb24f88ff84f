package migrate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Class is the differences of one cause: each kind of path it affects,
// the change of outcome, the Services, and the rules behind it.
type Class struct {
	// Cause is the kube-proxy behaviour the traced rules show, nil when
	// svclab's catalog (causes.go, docs/migration.md) does not know it.
	Cause *Cause
	// Groups are the class's paths by kind and change, each with an
	// example and the rules that decided it on each side.
	Groups []Group
	// Services are the Services affected ("ns/name"), Count the paths.
	Services []string
	Count    int
}

// Group is the differences of one kind of path and one change.
type Group struct {
	Kind     string   `json:"kind"` // target and client
	Change   string   `json:"change"`
	Families []string `json:"families"`
	Services []string `json:"services"`
	Count    int      `json:"paths"`
	// Example is the group's first path with both outcomes.
	Example Difference `json:"example"`
	// FromRules and ToRules are the last rules the example's first
	// packet matched on each side.
	FromRules []string `json:"fromRules"`
	ToRules   []string `json:"toRules"`
	cause     *Cause
}

// decisiveRules is how many matched rules at the end of a trace are shown.
const decisiveRules = 4

// classify groups differences by path kind and change, traces one
// example of each group on both sides with its rules (the comparison's
// oracles, keeping paths), finds its cause,
// and merges the groups of one cause into a class.
func classify(diffs []Difference, from, to *sideRules) ([]Class, error) {
	groups := groupDiffs(diffs)
	if len(groups) == 0 {
		return nil, nil
	}
	var classes []Class
	byCause := map[string]int{}
	inClass := map[string]bool{} // class index + "\x00" + service
	for _, g := range groups {
		q := g.Example.Path.Query
		a, err := from.oracle.Explain(q)
		if err != nil {
			return nil, fmt.Errorf("explain %s: %w", g.Example.Path, err)
		}
		b, err := to.oracle.Explain(q)
		if err != nil {
			return nil, fmt.Errorf("explain %s: %w", g.Example.Path, err)
		}
		g.FromRules, g.ToRules = tail(a.Path, decisiveRules), tail(b.Path, decisiveRules)
		g.cause = causeOf(evidence{path: g.Example.Path, from: from.side, to: to.side, a: g.Example.From, b: g.Example.To,
			fromRules: strings.Join(a.Path, "\n"), toRules: strings.Join(b.Path, "\n")})
		key := g.Kind + "\x00" + g.Change
		if g.cause != nil {
			key = g.cause.ID
		}
		i, ok := byCause[key]
		if !ok {
			i = len(classes)
			byCause[key] = i
			classes = append(classes, Class{Cause: g.cause})
		}
		c := &classes[i]
		c.Groups = append(c.Groups, *g)
		c.Count += g.Count
		for _, s := range g.Services {
			if k := strconv.Itoa(i) + "\x00" + s; !inClass[k] {
				inClass[k] = true
				c.Services = append(c.Services, s)
			}
		}
	}
	slices.SortStableFunc(classes, func(x, y Class) int { return y.Count - x.Count })
	return classes, nil
}

// groupDiffs groups differences by path kind and change, in order.
func groupDiffs(diffs []Difference) []*Group {
	byKey := map[string]*Group{}
	inGroup := map[string]bool{} // group key + "\x00" + service
	var out []*Group
	for _, d := range diffs {
		key := d.Path.Kind() + "\x00" + d.Change
		g := byKey[key]
		if g == nil {
			g = &Group{Kind: d.Path.Kind(), Change: d.Change, Example: d}
			byKey[key] = g
			out = append(out, g)
		}
		g.Count++
		if k := key + "\x00" + d.Path.Service; !inGroup[k] {
			inGroup[k] = true
			g.Services = append(g.Services, d.Path.Service)
		}
		if f := d.Path.Family.String(); !slices.Contains(g.Families, f) {
			g.Families = append(g.Families, f)
		}
	}
	return out
}

// decisive are the parts of a matched rule that decide where a packet
// goes: iptables' service, endpoint and node-port jumps, DNAT, DROP and
// REJECT; nftables' verdict maps, dnat, goto, drop and reject.
var decisive = []string{"-j DNAT", "-j KUBE-SVC", "-j KUBE-EXT", "-j KUBE-NODEPORTS", "-j KUBE-SEP", "-j KUBE-FW", "-j REJECT", "-j DROP",
	"-j KUBE-MARK-MASQ", "-j KUBE-NODE-PORT", "-j KUBE-IPVS-FILTER", "-j KUBE-LOAD-BALANCER", "vmap", "dnat to", "goto", "reject", "drop", "ipvs virtual server"}

// tail keeps the last n rules of path that matched (iptables steps the
// tracer marks MATCH, nftables steps with an action) and decide where the
// packet goes (decisive); the last n matched ones when none does.
func tail(path []string, n int) []string {
	var matched, kept []string
	for _, step := range path {
		if strings.Contains(step, " -     -A ") {
			continue
		}
		matched = append(matched, step)
		if slices.ContainsFunc(decisive, func(d string) bool { return strings.Contains(step, d) }) {
			kept = append(kept, step)
		}
	}
	if len(kept) == 0 {
		kept = matched
	}
	if len(kept) > n {
		kept = kept[len(kept)-n:]
	}
	return kept
}
