package audit

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// Kind is what is wrong with an object of the node.
type Kind string

// The kinds of finding.
const (
	Missing Kind = "missing" // kube-proxy would have written it; the node lacks it
	Stale   Kind = "stale"   // the node has it; kube-proxy would not have written it
	Differs Kind = "differs" // both have it, with another value or order
)

// Finding is one difference between the node and kube-proxy's rules.
type Finding struct {
	Kind Kind `json:"kind"`
	// Service owns the object ("ns/name"); "" for node-wide objects.
	Service string `json:"service,omitempty"`
	// Object is where it lives: "nat chain KUBE-SVC-…", "map service-ips",
	// "virtual server -t 10.96.0.1:443", "ipset KUBE-CLUSTER-IP".
	Object string `json:"object"`
	// Item is the rule, element, real server or member ("" for the
	// object as a whole).
	Item string `json:"item,omitempty"`
	// Expected and Actual are the values that differ (Differs), or a
	// summary of a whole object (how many rules a missing chain has).
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
}

// fact is one thing kube-proxy writes, in a comparable form.
type fact struct {
	object string // the chain, set, virtual server
	item   string // "" for the object itself; a normal-form rule, an element key, a real server
	value  string // compared when both sides have the fact
	owner  string // the Service ("ns/name"), "" when node-wide or unknown
	show   string // the item as the node's tools print it ("" : item)
	// ordered marks an object whose items' order matters.
	ordered bool
}

func (f fact) key() string { return f.object + "\x00" + f.item }

// shown is the item as a finding names it.
func (f fact) shown() string {
	if f.show != "" {
		return f.show
	}
	return f.item
}

// factSet is one side's facts, by key, and each object's items in order.
type factSet struct {
	byKey map[string]fact
	order map[string][]string // object → its ordered items' keys
}

func newFactSet() *factSet {
	return &factSet{byKey: map[string]fact{}, order: map[string][]string{}}
}

// add records f; a repeated item (the same rule twice in a chain) is
// numbered so that a multiset compares as one.
func (s *factSet) add(f fact) {
	base := f.item
	for n := 2; ; n++ {
		if _, dup := s.byKey[f.key()]; !dup {
			break
		}
		f.item = fmt.Sprintf("%s (#%d)", base, n)
	}
	s.byKey[f.key()] = f
	if f.item != "" {
		s.order[f.object] = append(s.order[f.object], f.key())
	}
}

// factsOf reduces a dump of mode to kube-proxy's facts for family (the
// mode's entry in auditModes; none for a mode without one).
func factsOf(mode dataplane.Mode, fam model.Family, d *analyze.Dump, idx *owners) *factSet {
	s := newFactSet()
	if e, ok := auditModes[mode]; ok {
		e.facts(s, fam, d, idx)
	}
	return s
}

// compare returns the findings between the expected and the node's dump.
func compare(mode dataplane.Mode, fam model.Family, want, got *analyze.Dump, idx *owners) []Finding {
	w, g := factsOf(mode, fam, want, idx), factsOf(mode, fam, got, idx)
	learnOwners(g)
	var out []Finding
	gone := map[string]bool{} // objects missing or stale as a whole
	for _, k := range sortedKeys(w.byKey) {
		f := w.byKey[k]
		h, ok := g.byKey[k]
		switch {
		case !ok && f.item == "":
			gone[f.object] = true
			out = append(out, Finding{Kind: Missing, Service: f.owner, Object: f.object, Expected: count(w, f.object)})
		case !ok && !gone[f.object]:
			out = append(out, Finding{Kind: Missing, Service: f.owner, Object: f.object, Item: f.shown(), Expected: f.value})
		case ok && h.value != f.value:
			out = append(out, Finding{Kind: Differs, Service: owner(f, h), Object: f.object, Item: f.shown(), Expected: f.value, Actual: h.value})
		}
	}
	for _, k := range sortedKeys(g.byKey) {
		f := g.byKey[k]
		if _, ok := w.byKey[k]; ok {
			continue
		}
		if f.item == "" {
			gone[f.object] = true
			out = append(out, Finding{Kind: Stale, Service: f.owner, Object: f.object, Actual: count(g, f.object)})
		} else if !gone[f.object] {
			out = append(out, Finding{Kind: Stale, Service: f.owner, Object: f.object, Item: f.shown(), Actual: f.value})
		}
	}
	return append(out, orderFindings(w, g)...)
}

// orderFindings reports ordered objects whose items are the same on both
// sides in another order.
func orderFindings(w, g *factSet) []Finding {
	var out []Finding
	for _, obj := range sortedKeys(w.order) {
		a, b := w.order[obj], g.order[obj]
		if slices.Equal(a, b) || !sameItems(a, b) || !w.byKey[a[0]].ordered {
			continue
		}
		out = append(out, Finding{Kind: Differs, Service: w.byKey[a[0]].owner, Object: obj, Item: "rule order",
			Expected: itemList(w, a), Actual: itemList(g, b)})
	}
	return out
}

func sameItems(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func itemList(s *factSet, keys []string) string {
	items := make([]string, len(keys))
	for i, k := range keys {
		items[i] = s.byKey[k].shown()
	}
	return strings.Join(items, " | ")
}

// count summarises a whole object: how many items it holds.
func count(s *factSet, object string) string {
	n := len(s.order[object])
	if v := s.byKey[object+"\x00"].value; v != "" {
		return fmt.Sprintf("%s, %d items", v, n)
	}
	return fmt.Sprintf("%d items", n)
}

func owner(a, b fact) string {
	if a.owner != "" {
		return a.owner
	}
	return b.owner
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// learnOwners names the Service of the node's facts no name or object
// gives one (a deleted Service's ClusterIP in a set) from the node's own
// facts that do: an address a Service's element or rule holds is that
// Service's.
func learnOwners(s *factSet) {
	byAddr := map[netip.Addr]string{}
	for _, f := range s.byKey {
		if a, ok := firstAddr(f.item); ok && serviceOfPortName(f.owner) != "" {
			byAddr[a] = f.owner
		}
	}
	for k, f := range s.byKey {
		if f.owner != "" {
			continue
		}
		if a, ok := firstAddr(f.item); ok && byAddr[a] != "" {
			f.owner = byAddr[a]
			s.byKey[k] = f
		}
	}
}

// firstAddr is the first word of text that is a single address
// ("172.30.0.48 . tcp . 80", "172.30.0.48,tcp:80").
func firstAddr(text string) (netip.Addr, bool) {
	w, _, _ := strings.Cut(text, " ")
	w, _, _ = strings.Cut(w, ",")
	a, err := netip.ParseAddr(w)
	return a, err == nil
}
