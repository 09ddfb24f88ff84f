package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
)

// nftTableName is the table kube-proxy's nftables mode owns, in the "ip"
// and "ip6" families.
const nftTableName = "kube-proxy"

// nftFamily is the nftables family of a proxier.
func nftFamily(f model.Family) string {
	if f == model.IPv6 {
		return "ip6"
	}
	return "ip"
}

// nftablesFacts adds the facts of kube-proxy's table of family fam: each
// chain (its hook, type, priority and policy) and rule (its parsed
// expressions, without counters and comments), each set and map and
// element (elements of dynamic sets, filled by traffic, left out), each
// named counter. Other tables are not kube-proxy's.
func nftablesFacts(s *factSet, rs *nftables.Ruleset, fam model.Family, idx *owners) {
	if rs == nil {
		return
	}
	t := rs.Table(nftFamily(fam), nftTableName)
	if t == nil {
		return
	}
	for _, c := range t.Chains {
		object := "chain " + c.Name
		owner := nftChainService(c.Name)
		s.add(fact{object: object, value: chainKind(c), owner: owner})
		for _, r := range c.Rules {
			o := serviceOfPortName(r.Comment)
			if o == "" {
				o = owner
			}
			s.add(fact{object: object, item: nftRuleItem(r), show: r.Text(), owner: o, ordered: true})
		}
	}
	for _, set := range t.Sets {
		object := setKind(set) + " " + set.Name
		s.add(fact{object: object, value: setShape(set), owner: nftChainService(set.Name)})
		if dynamic(set) {
			continue
		}
		for _, e := range set.Elements {
			s.add(fact{object: object, item: e.KeyString(), value: strings.Join(e.Value, " "), owner: elementService(e, idx)})
		}
	}
	for _, name := range t.Counters {
		s.add(fact{object: "counter " + name, owner: nftChainService(name)})
	}
}

func chainKind(c *nftables.Chain) string {
	if !c.IsBase() {
		return ""
	}
	return fmt.Sprintf("type %s hook %s priority %d policy %s", c.Type, c.Hook, c.Priority, c.Policy)
}

func setKind(s *nftables.Set) string {
	if s.IsMap {
		return "map"
	}
	return "set"
}

func setShape(s *nftables.Set) string {
	shape := "type " + strings.Join(s.KeyType, " . ")
	if s.IsMap {
		shape += " : " + s.DataType
	}
	if len(s.Flags) > 0 {
		shape += " flags " + strings.Join(s.Flags, ",")
	}
	return shape
}

// dynamic reports a set the packet path fills (session affinity).
func dynamic(s *nftables.Set) bool {
	return s.Timeout > 0 || slices.Contains(s.Flags, "dynamic") || slices.Contains(s.Flags, "timeout")
}

// nftServiceChain matches kube-proxy's per-service object names:
// "service-HASH-ns/name/tcp/port", "endpoint-HASH-ns/name/tcp/port__ip/port".
var nftServiceChain = regexp.MustCompile(`^[a-z-]+-[A-Z2-7]{8}-([^/]+)/([^/]+)/`)

// nftChainService is the Service of a kube-proxy chain, set or counter
// name, "" for a node-wide one.
func nftChainService(name string) string {
	m := nftServiceChain.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	return m[1] + "/" + m[2]
}

// elementService is the Service an element serves: its comment, the
// chain it jumps to, or its address.
func elementService(e nftables.Element, idx *owners) string {
	if s := serviceOfPortName(e.Comment); s != "" {
		return s
	}
	if v, ok := e.Verdict(); ok && v.Chain != "" {
		if s := nftChainService(v.Chain); s != "" {
			return s
		}
	}
	return idx.ofText(e.KeyString())
}

// nftRuleItem is a rule's expressions in a form the transaction kube-proxy
// writes and the kernel's listing of it share: counters left out, numbers
// in decimal, a one-element anonymous set as its literal, anonymous
// elements sorted.
func nftRuleItem(r *nftables.Rule) string {
	var parts []string
	for _, e := range r.Exprs {
		switch x := e.(type) {
		case nftables.Counter, *nftables.Counter:
			continue
		case nftables.Match:
			parts = append(parts, matchText(x))
		case *nftables.Match:
			parts = append(parts, matchText(*x))
		case nftables.VerdictMap:
			parts = append(parts, vmapText(x))
		case *nftables.VerdictMap:
			parts = append(parts, vmapText(*x))
		default:
			parts = append(parts, fmt.Sprintf("%T%+v", e, e))
		}
	}
	return strings.Join(parts, " ; ")
}

func matchText(m nftables.Match) string {
	vals := append(append([]string{}, m.Right.Literals...), m.Right.Anon...)
	for i, v := range vals {
		vals[i] = decimal(v)
	}
	slices.Sort(vals)
	left := make([]string, len(m.Left))
	for i, s := range m.Left {
		left[i] = string(s)
	}
	mask := ""
	if m.HasMask {
		mask = fmt.Sprintf(" & %d", m.Mask)
	}
	ref := ""
	if m.Right.SetRef != "" {
		ref = "@" + m.Right.SetRef
	}
	return fmt.Sprintf("%s%s %s %s{%s}", strings.Join(left, " . "), mask, m.Op, ref, strings.Join(vals, ", "))
}

func vmapText(v nftables.VerdictMap) string {
	keys := make([]string, len(v.Key))
	for i, s := range v.Key {
		keys[i] = string(s)
	}
	entries := make([]string, len(v.Anon))
	for i, e := range v.Anon {
		entries[i] = fmt.Sprintf("%s : %s %s", decimal(e.Key), e.Verdict.Kind, e.Verdict.Chain)
	}
	slices.Sort(entries)
	ref := ""
	if v.MapRef != "" {
		ref = "@" + v.MapRef
	}
	return fmt.Sprintf("%s vmap %s{%s}", strings.Join(keys, " . "), ref, strings.Join(entries, ", "))
}

// decimal writes a number in decimal ("0x00004000" is "16384"); other
// words are left as they are.
func decimal(w string) string {
	if n, err := strconv.ParseUint(w, 0, 64); err == nil {
		return strconv.FormatUint(n, 10)
	}
	return w
}
