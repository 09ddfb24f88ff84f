package nftables

import (
	"fmt"
	"strings"
)

func (t *txTable) elementCommand(c txCommand) error {
	kind := t.setOrMapNamed(c.name)
	if kind == "" {
		return fmt.Errorf("element of missing set or map %s", c.name)
	}
	e, err := parseTxElement(c.rest)
	if err != nil {
		return fmt.Errorf("element of %s %s: %w", kind, c.name, err)
	}
	e.line = c.asAdd()
	i := t.findElement(c.name, e.key)
	switch c.verb {
	case "add", "create":
		return t.addElement(kind, c.name, e, i, c.verb == "create")
	case "delete", "destroy":
		if i < 0 {
			if c.verb == "delete" {
				return fmt.Errorf("delete of missing element %s of %s %s", e.key, kind, c.name)
			}
			return nil
		}
		es := t.elements[c.name]
		t.elements[c.name] = append(es[:i:i], es[i+1:]...)
		return nil
	}
	return fmt.Errorf("unsupported command %q", c.verb+" element")
}

// addElement adds e to the set or map, which holds it at index i already
// if i >= 0.
func (t *txTable) addElement(kind, set string, e txElement, i int, create bool) error {
	switch {
	case kind == "set" && e.value != "":
		return fmt.Errorf("element %s of set %s has a value (%s); only maps take one", e.key, set, e.value)
	case kind == "map" && e.value == "":
		return fmt.Errorf("element %s of map %s has no value (want KEY : VALUE)", e.key, set)
	case i >= 0 && create:
		return fmt.Errorf("element %s of %s %s exists", e.key, kind, set)
	case i >= 0 && t.elements[set][i].value != e.value:
		return fmt.Errorf("element %s of map %s re-added with value %s (it has %s; delete it first)", e.key, set, e.value, t.elements[set][i].value)
	case i >= 0:
		t.elements[set][i] = e // as the Fake does: the new comment, in place
		return nil
	}
	if v := strings.Fields(e.value); len(v) == 2 && (v[0] == "jump" || v[0] == "goto") {
		if _, ok := t.objects["chain "+v[1]]; !ok {
			return fmt.Errorf("element %s of map %s: %s to missing chain %s", e.key, set, v[0], v[1])
		}
	}
	t.elements[set] = append(t.elements[set], e)
	return nil
}

func (t *txTable) findElement(set, key string) int {
	for i, e := range t.elements[set] {
		if e.key == key {
			return i
		}
	}
	return -1
}

// parseTxElement splits an element command's "{ KEY [comment "…"] [:
// VALUE] }" (as knftables writes it) into key and value.
func parseTxElement(rest string) (txElement, error) {
	if !strings.HasPrefix(rest, "{ ") || !strings.HasSuffix(rest, " }") || len(rest) < 4 {
		return txElement{}, fmt.Errorf("want { KEY [comment \"…\"] [: VALUE] }, have %q", rest)
	}
	body := rest[2 : len(rest)-2]
	var e txElement
	if i := strings.Index(body, ` comment "`); i >= 0 {
		tail, err := afterQuoted(body[i+len(" comment "):])
		if err != nil {
			return txElement{}, fmt.Errorf("comment: %w", err)
		}
		if tail != "" && !strings.HasPrefix(tail, " : ") {
			return txElement{}, fmt.Errorf("%q after the comment (want : VALUE or })", tail)
		}
		e.key, e.value = body[:i], strings.TrimPrefix(tail, " : ")
	} else if k, v, ok := strings.Cut(body, " : "); ok {
		e.key, e.value = k, v
	} else {
		e.key = body
	}
	if e.key = strings.TrimSpace(e.key); e.key == "" || strings.ContainsAny(e.key, `"{}`) {
		return txElement{}, fmt.Errorf("bad key %q", e.key)
	}
	if e.value = strings.TrimSpace(e.value); strings.ContainsAny(e.value, "{}") {
		return txElement{}, fmt.Errorf("bad value %q", e.value)
	}
	return e, nil
}

// afterQuoted is what follows the Go-quoted string s starts with.
func afterQuoted(s string) (string, error) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[i+1:], nil
		}
	}
	return "", fmt.Errorf("unterminated string %s", s)
}

// checkRuleRefs fails if a rule names a set or map (@name) or a chain
// (jump, goto) that the table does not have, as knftables' Fake does.
func (t *txTable) checkRuleRefs(rule string) error {
	w := strings.Split(rule, " ")
	for i, word := range w {
		prev := ""
		if i > 0 {
			prev = w[i-1]
		}
		switch {
		case strings.HasPrefix(word, "@") && !strings.Contains(word, ","):
			name := word[1:]
			if kind := t.setOrMapNamed(name); kind == "" || (prev == "map" || prev == "vmap") && kind != "map" {
				return fmt.Errorf("no such set or map %q", name)
			}
		case (word == "jump" || word == "goto") && i+1 < len(w):
			if _, ok := t.objects["chain "+w[i+1]]; !ok {
				return fmt.Errorf("%s to missing chain %q", word, w[i+1])
			}
		}
	}
	return nil
}

// userOf names a rule or map element that still names the chain, set or
// map (kind, name), which the kernel refuses to delete; "" if none does.
func (t *txTable) userOf(kind, name string) string {
	if kind == "counter" {
		return ""
	}
	for chain, rules := range t.rules {
		for _, r := range rules {
			if ruleNames(strings.SplitN(r, " ", 6)[5], kind, name) {
				return "a rule of chain " + chain
			}
		}
	}
	if kind != "chain" {
		return ""
	}
	for set, es := range t.elements {
		for _, e := range es {
			if e.value == "jump "+name || e.value == "goto "+name {
				return "element " + e.key + " of map " + set
			}
		}
	}
	return ""
}

// ruleNames reports whether rule jumps or goes to chain name (kind
// "chain") or looks up set or map name.
func ruleNames(rule, kind, name string) bool {
	w := strings.Split(rule, " ")
	for i, word := range w {
		if kind == "chain" && (word == "jump" || word == "goto") && i+1 < len(w) && w[i+1] == name {
			return true
		}
		if kind != "chain" && word == "@"+name {
			return true
		}
	}
	return false
}
