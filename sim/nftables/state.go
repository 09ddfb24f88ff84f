package nftables

import "strings"

// ensureTable returns the table, creating it if needed.
func (rs *Ruleset) ensureTable(family, name string) *Table {
	if t := rs.Table(family, name); t != nil {
		return t
	}
	t := &Table{Family: family, Name: name, chains: map[string]*Chain{}, sets: map[string]*Set{}}
	rs.Tables = append(rs.Tables, t)
	return t
}

// deleteTable removes t with everything in it.
func (rs *Ruleset) deleteTable(t *Table) {
	for i, x := range rs.Tables {
		if x == t {
			rs.Tables = append(rs.Tables[:i], rs.Tables[i+1:]...)
			return
		}
	}
}

// ensureChain returns the chain, creating a regular chain if needed.
func (t *Table) ensureChain(name string, line int) *Chain {
	if c := t.chains[name]; c != nil {
		return c
	}
	c := &Chain{Name: name, Line: line}
	t.chains[name] = c
	t.Chains = append(t.Chains, c)
	return c
}

// ensureSet returns the set or map, creating it if needed.
func (t *Table) ensureSet(name string, isMap bool, line int) *Set {
	if s := t.sets[name]; s != nil {
		return s
	}
	s := &Set{Name: name, IsMap: isMap, Line: line, index: map[string]int{}}
	t.sets[name] = s
	t.Sets = append(t.Sets, s)
	return s
}

// deleteChain removes a chain that nothing refers to (the kernel answers
// EBUSY otherwise).
func (t *Table) deleteChain(name string, line int) error {
	c := t.chains[name]
	if c == nil {
		return errorf(line, "chain %s does not exist", name)
	}
	if by := t.chainUser(name); by != "" {
		return errorf(line, "chain %s is still referenced by %s", name, by)
	}
	delete(t.chains, name)
	for i, x := range t.Chains {
		if x == c {
			t.Chains = append(t.Chains[:i], t.Chains[i+1:]...)
			break
		}
	}
	return nil
}

// deleteSet removes a set or map no rule refers to.
func (t *Table) deleteSet(name string, line int) error {
	s := t.sets[name]
	if s == nil {
		return errorf(line, "set %s does not exist", name)
	}
	for _, c := range t.Chains {
		for _, r := range c.Rules {
			if ruleUsesSet(r, name) {
				return errorf(line, "set %s is still referenced by a rule of chain %s (line %d)", name, c.Name, r.Line)
			}
		}
	}
	delete(t.sets, name)
	for i, x := range t.Sets {
		if x == s {
			t.Sets = append(t.Sets[:i], t.Sets[i+1:]...)
			break
		}
	}
	return nil
}

// chainUser names something that refers to chain name, or returns "".
func (t *Table) chainUser(name string) string {
	for _, c := range t.Chains {
		for _, r := range c.Rules {
			for _, target := range ruleTargets(r) {
				if target == name {
					return "a rule of chain " + c.Name
				}
			}
		}
	}
	for _, s := range t.Sets {
		for _, e := range s.Elements {
			if v, ok := e.Verdict(); ok && v.Chain == name {
				return "an element of map " + s.Name
			}
		}
	}
	return ""
}

// addElement adds e to s, checking its shape and verdict; re-adding an
// element with the same value is allowed, a different value is not.
func (t *Table) addElement(s *Set, e Element, line int) error {
	if len(e.Key) != len(s.KeyType) {
		return errorf(line, "element %s of %s: key has %d fields, type has %d", e.KeyString(), s.Name, len(e.Key), len(s.KeyType))
	}
	if s.IsMap != (len(e.Value) > 0) {
		return errorf(line, "element %s of %s: a map element needs a value, a set element none", e.KeyString(), s.Name)
	}
	if s.DataType == "verdict" {
		v, ok := e.Verdict()
		if !ok {
			return errorf(line, "element %s of %s: bad verdict %q", e.KeyString(), s.Name, strings.Join(e.Value, " "))
		}
		if v.Chain != "" && t.chains[v.Chain] == nil {
			return errorf(line, "element %s of %s: chain %s does not exist", e.KeyString(), s.Name, v.Chain)
		}
	}
	key := e.KeyString()
	if i, ok := s.index[key]; ok {
		if strings.Join(s.Elements[i].Value, " ") != strings.Join(e.Value, " ") {
			return errorf(line, "element %s of %s already exists with another value", key, s.Name)
		}
		return nil
	}
	s.index[key] = len(s.Elements)
	s.Elements = append(s.Elements, e)
	return nil
}

// deleteElement removes the element with e's key.
func (s *Set) deleteElement(e Element, line int) error {
	key := e.KeyString()
	i, ok := s.index[key]
	if !ok {
		return errorf(line, "element %s of %s does not exist", key, s.Name)
	}
	s.Elements = append(s.Elements[:i], s.Elements[i+1:]...)
	delete(s.index, key)
	for j := i; j < len(s.Elements); j++ {
		s.index[s.Elements[j].KeyString()] = j
	}
	return nil
}

// checkRefs fails when r jumps to a missing chain or uses a missing set.
func (t *Table) checkRefs(r *Rule) error {
	for _, target := range ruleTargets(r) {
		if t.chains[target] == nil {
			return errorf(r.Line, "rule %q: chain %s does not exist", r.Text(), target)
		}
	}
	for _, name := range ruleSets(r) {
		s := t.sets[name]
		if s == nil {
			return errorf(r.Line, "rule %q: set %s does not exist", r.Text(), name)
		}
	}
	return t.checkCounterRefs(r)
}

// ruleTargets lists the chains a rule may jump or go to.
func ruleTargets(r *Rule) []string {
	var out []string
	add := func(v Verdict) {
		if v.Chain != "" {
			out = append(out, v.Chain)
		}
	}
	for _, x := range r.Exprs {
		switch e := x.(type) {
		case Verdict:
			add(e)
		case VerdictMap:
			for _, m := range e.Anon {
				add(m.Verdict)
			}
		case Numgen:
			for _, m := range e.Map {
				add(m.Verdict)
			}
		}
	}
	return out
}

// ruleSets lists the named sets and maps a rule uses.
func ruleSets(r *Rule) []string {
	var out []string
	for _, x := range r.Exprs {
		switch e := x.(type) {
		case Match:
			if e.Right.SetRef != "" {
				out = append(out, e.Right.SetRef)
			}
		case VerdictMap:
			if e.MapRef != "" {
				out = append(out, e.MapRef)
			}
		case SetUpdate:
			out = append(out, e.Set)
		}
	}
	return out
}

// ruleUsesSet reports whether r refers to set name.
func ruleUsesSet(r *Rule, name string) bool {
	for _, s := range ruleSets(r) {
		if s == name {
			return true
		}
	}
	return false
}
