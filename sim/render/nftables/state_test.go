package nftables

import (
	"fmt"
	"sort"
	"strings"
)

// nftState is the final state a transaction leaves in an empty table, as
// knftables.Fake would hold it: objects by kind and name (re-adding one is
// a no-op), rules per chain in order, elements per set or map by key.
// It understands exactly the line forms the renderer writes.
type nftState struct {
	objects  map[string]string            // "chain NAME" → its add line
	rules    map[string][]string          // chain → add rule lines
	elements map[string]map[string]string // set/map → key → add element line
}

func newNFTState() *nftState {
	return &nftState{objects: map[string]string{}, rules: map[string][]string{}, elements: map[string]map[string]string{}}
}

// apply runs one transaction over the state.
func (s *nftState) apply(tx string) error {
	for n, line := range strings.Split(tx, "\n") {
		if line == "" {
			continue
		}
		if err := s.applyLine(line); err != nil {
			return fmt.Errorf("line %d %q: %w", n+1, line, err)
		}
	}
	return nil
}

func (s *nftState) applyLine(line string) error {
	w := strings.SplitN(line, " ", 6) // verb kind family table name rest
	if len(w) < 4 || w[2] != "ip" && w[2] != "ip6" || w[3] != "kube-proxy" {
		return fmt.Errorf("not a kube-proxy table command")
	}
	if w[1] == "table" {
		s.objects["table"] = line
		return nil
	}
	if len(w) < 5 {
		return fmt.Errorf("no object name")
	}
	verb, kind, name := w[0], w[1], w[4]
	id := kind + " " + name
	switch verb + " " + kind {
	case "add chain", "add set", "add map", "add counter":
		if _, ok := s.objects[id]; !ok {
			s.objects[id] = line
		}
	case "delete chain", "delete set", "delete map", "delete counter":
		if _, ok := s.objects[id]; !ok {
			return fmt.Errorf("deleting missing %s", id)
		}
		delete(s.objects, id)
		delete(s.rules, name)
		delete(s.elements, name)
	case "flush chain":
		delete(s.rules, name)
	case "flush set", "flush map":
		delete(s.elements, name)
	case "add rule":
		if _, ok := s.objects["chain "+name]; !ok {
			return fmt.Errorf("rule in missing chain %s", name)
		}
		s.rules[name] = append(s.rules[name], line)
	case "add element", "delete element":
		return s.element(verb, name, line)
	default:
		return fmt.Errorf("unknown command")
	}
	return nil
}

func (s *nftState) element(verb, set, line string) error {
	_, okSet := s.objects["set "+set]
	_, okMap := s.objects["map "+set]
	if !okSet && !okMap {
		return fmt.Errorf("element of missing set %s", set)
	}
	body := line[strings.Index(line, " { ")+3 : strings.LastIndex(line, " }")]
	key := body
	for _, sep := range []string{" comment ", " : "} {
		if i := strings.Index(key, sep); i >= 0 {
			key = key[:i]
		}
	}
	if verb == "delete" {
		if _, ok := s.elements[set][key]; !ok {
			return fmt.Errorf("deleting missing element %q", key)
		}
		delete(s.elements[set], key)
		return nil
	}
	if s.elements[set] == nil {
		s.elements[set] = map[string]string{}
	}
	if old, ok := s.elements[set][key]; ok && old != line {
		return fmt.Errorf("element %q re-added with another value", key)
	}
	s.elements[set][key] = line
	return nil
}

// dump writes the state as knftables.Fake.Dump does (objects, rules,
// elements), with every "add" line as the renderer wrote it.
func (s *nftState) dump() string {
	var b strings.Builder
	b.WriteString(s.objects["table"] + "\n")
	ids := make([]string, 0, len(s.objects))
	for id := range s.objects {
		if id != "table" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		b.WriteString(s.objects[id] + "\n")
	}
	for _, id := range ids {
		for _, r := range s.rules[strings.TrimPrefix(id, "chain ")] {
			b.WriteString(r + "\n")
		}
	}
	for _, id := range ids {
		for _, e := range s.elements[id[strings.IndexByte(id, ' ')+1:]] {
			b.WriteString(e + "\n")
		}
	}
	return b.String()
}
