package conformance

import (
	"fmt"
	"sort"
	"strings"
)

// nftState is the state a sequence of nft transactions leaves in the
// kube-proxy table, kept as text the way knftables' Fake keeps it: objects
// by kind and name (re-adding one is a no-op), rules per chain in order,
// elements per set or map by key (re-adding one is a no-op). It knows the
// command forms knftables writes: add, flush and delete of tables, chains,
// sets, maps, counters, rules and elements.
type nftState struct {
	objects  map[string]string            // "chain NAME" → its add line
	rules    map[string][]string          // chain → rule bodies in order
	elements map[string]map[string]string // set or map → key → element text
}

func newNFTState() *nftState {
	return &nftState{objects: map[string]string{}, rules: map[string][]string{}, elements: map[string]map[string]string{}}
}

// apply runs one transaction. Like nft, it fails on deleting what does
// not exist; unlike nft, a failed transaction is not rolled back.
func (s *nftState) apply(tx string) error {
	for n, line := range strings.Split(tx, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := s.line(line); err != nil {
			return fmt.Errorf("line %d %q: %w", n+1, line, err)
		}
	}
	return nil
}

func (s *nftState) line(line string) error {
	w := strings.SplitN(line, " ", 6) // verb kind family table name rest
	if len(w) < 4 || w[2] != "ip" && w[2] != "ip6" || w[3] != "kube-proxy" {
		return fmt.Errorf("not a command on table ip (or ip6) kube-proxy")
	}
	if w[1] == "table" {
		if w[0] == "delete" {
			*s = *newNFTState()
		} else {
			s.objects["table"] = "table"
		}
		return nil
	}
	if len(w) < 5 {
		return fmt.Errorf("no object name")
	}
	verb, kind, name, rest := w[0], w[1], w[4], ""
	if len(w) == 6 {
		rest = w[5]
	}
	id := kind + " " + name
	switch verb + " " + kind {
	case "add chain", "add set", "add map", "add counter":
		if _, ok := s.objects[id]; !ok {
			s.objects[id] = strings.Join(w[:2], " ") + " " + name + spec(rest)
		}
	case "delete chain", "delete set", "delete map", "delete counter":
		if _, ok := s.objects[id]; !ok {
			return fmt.Errorf("delete of missing %s", id)
		}
		if kind == "chain" && len(s.rules[name]) > 0 {
			return fmt.Errorf("delete of non-empty %s", id)
		}
		delete(s.objects, id)
		delete(s.rules, name)
		delete(s.elements, name)
	case "flush chain":
		if _, ok := s.objects[id]; !ok {
			return fmt.Errorf("flush of missing %s", id)
		}
		delete(s.rules, name)
	case "flush set", "flush map":
		delete(s.elements, name)
	case "add rule":
		if _, ok := s.objects["chain "+name]; !ok {
			return fmt.Errorf("rule in missing chain %s", name)
		}
		s.rules[name] = append(s.rules[name], rest)
	case "add element", "delete element":
		if _, ok := s.objects["set "+name]; !ok {
			if _, ok := s.objects["map "+name]; !ok {
				return fmt.Errorf("element of missing set or map %s", name)
			}
		}
		return s.element(verb, name, rest)
	default:
		return fmt.Errorf("unknown command %q", verb+" "+kind)
	}
	return nil
}

// spec keeps an object's "{ … }" declaration, if any.
func spec(rest string) string {
	if rest == "" {
		return ""
	}
	return " " + rest
}

func (s *nftState) element(verb, set, rest string) error {
	body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(rest), "{ "), " }")
	k := body
	if i := strings.Index(k, " : "); i >= 0 {
		k = k[:i]
	}
	if i := strings.Index(k, " comment "); i >= 0 {
		k = k[:i]
	}
	m := s.elements[set]
	if m == nil {
		m = map[string]string{}
		s.elements[set] = m
	}
	if verb == "delete" {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("delete of missing element %s in %s", k, set)
		}
		delete(m, k)
		return nil
	}
	if _, ok := m[k]; !ok {
		m[k] = body
	}
	return nil
}

// dump prints the state canonically: objects sorted by kind and name, each
// chain's rules in order (the services chain's sorted: kube-proxy writes
// them in map order), each set's elements sorted. Regular chains that are
// empty and that no rule or element jumps or goes to are left out:
// kube-proxy flushes a stale chain and deletes it a second later.
func (s *nftState) dump() string {
	refs := strings.Builder{}
	for _, rs := range s.rules {
		for _, r := range rs {
			refs.WriteString(r + "\n")
		}
	}
	for _, es := range s.elements {
		for _, e := range es {
			refs.WriteString(e + "\n")
		}
	}
	all := refs.String() + " "
	ids := make([]string, 0, len(s.objects))
	for id, decl := range s.objects {
		name := strings.TrimPrefix(id, "chain ")
		if strings.HasPrefix(id, "chain ") && len(s.rules[name]) == 0 && !strings.Contains(decl, "hook") &&
			!strings.Contains(all, "jump "+name+" ") && !strings.Contains(all, "goto "+name+" ") &&
			!strings.Contains(all, "jump "+name+"\n") && !strings.Contains(all, "goto "+name+"\n") {
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(s.objects[id] + "\n")
		name := id[strings.IndexByte(id, ' ')+1:]
		rules := append([]string(nil), s.rules[name]...)
		if name == "services" {
			sort.Strings(rules)
		}
		for _, r := range rules {
			b.WriteString("  rule " + r + "\n")
		}
		elems := make([]string, 0, len(s.elements[name]))
		for _, e := range s.elements[name] {
			elems = append(elems, e)
		}
		sort.Strings(elems)
		for _, e := range elems {
			b.WriteString("  element " + e + "\n")
		}
	}
	return b.String()
}
