package nftables

import (
	"fmt"
	"sort"
	"strings"
)

// txTable is one table of a TransactionState: its add line, its objects'
// add lines, its chains' rules in order and its sets' and maps' elements
// in the order they were added.
type txTable struct {
	line     string
	objects  map[string]string      // "chain NAME", "set NAME", "map NAME", "counter NAME" → add line
	rules    map[string][]string    // chain → add rule lines
	elements map[string][]txElement // set or map → elements
}

// txElement is one element of a set or map, by its key.
type txElement struct{ key, value, line string }

// txObjectKinds are the object kinds in the order the Fake dumps them.
var txObjectKinds = []string{"chain", "set", "map", "counter"}

func newTxTable(line string) *txTable {
	return &txTable{line: line, objects: map[string]string{}, rules: map[string][]string{}, elements: map[string][]txElement{}}
}

func (t *txTable) clone() *txTable {
	c := newTxTable(t.line)
	for id, l := range t.objects {
		c.objects[id] = l
	}
	for ch, rs := range t.rules {
		c.rules[ch] = append([]string(nil), rs...)
	}
	for set, es := range t.elements {
		c.elements[set] = append([]txElement(nil), es...)
	}
	return c
}

func (t *txTable) command(c txCommand) error {
	switch c.kind {
	case "chain", "set", "map", "counter":
		return t.objectCommand(c)
	case "rule":
		return t.ruleCommand(c)
	case "element":
		return t.elementCommand(c)
	}
	return fmt.Errorf("unsupported object kind %q (want table, chain, set, map, counter, rule or element)", c.kind)
}

func (t *txTable) objectCommand(c txCommand) error {
	id := c.kind + " " + c.name
	_, ok := t.objects[id]
	switch c.verb + " " + c.kind {
	case "add chain", "add set", "add map", "add counter", "create chain", "create set", "create map", "create counter":
		if ok && c.verb == "create" {
			return fmt.Errorf("%s exists", id)
		}
		if other := t.setOrMapNamed(c.name); (c.kind == "set" || c.kind == "map") && other != "" && other != c.kind {
			return fmt.Errorf("%s: a %s of that name exists", id, other)
		}
		if !ok {
			t.objects[id] = c.asAdd()
		}
	case "flush chain", "flush set", "flush map":
		if !ok {
			return fmt.Errorf("flush of missing %s", id)
		}
		if c.kind == "chain" {
			delete(t.rules, c.name)
		} else {
			delete(t.elements, c.name)
		}
	case "delete chain", "delete set", "delete map", "delete counter", "destroy chain", "destroy set", "destroy map", "destroy counter":
		if !ok {
			if c.verb == "delete" {
				return fmt.Errorf("delete of missing %s", id)
			}
			return nil
		}
		return t.deleteObject(c.kind, c.name)
	default:
		return fmt.Errorf("unsupported command %q", c.verb+" "+c.kind)
	}
	return nil
}

// setOrMapNamed is "set" or "map" if the table has one called name (the
// two share a namespace), else "".
func (t *txTable) setOrMapNamed(name string) string {
	for _, kind := range []string{"set", "map"} {
		if _, ok := t.objects[kind+" "+name]; ok {
			return kind
		}
	}
	return ""
}

func (t *txTable) deleteObject(kind, name string) error {
	if n := len(t.rules[name]); kind == "chain" && n > 0 {
		return fmt.Errorf("delete of chain %s, which has %d rules (flush it first)", name, n)
	}
	if user := t.userOf(kind, name); user != "" {
		return fmt.Errorf("delete of %s %s, which %s still names", kind, name, user)
	}
	delete(t.objects, kind+" "+name)
	if kind == "chain" {
		delete(t.rules, name)
	}
	if kind == "set" || kind == "map" {
		delete(t.elements, name)
	}
	return nil
}

func (t *txTable) ruleCommand(c txCommand) error {
	if c.verb != "add" && c.verb != "insert" {
		return fmt.Errorf("unsupported command %q (rules are kept without handles)", c.verb+" rule")
	}
	if _, ok := t.objects["chain "+c.name]; !ok {
		return fmt.Errorf("rule in missing chain %s", c.name)
	}
	if c.rest == "" {
		return fmt.Errorf("rule in chain %s without a body", c.name)
	}
	if w := strings.SplitN(c.rest, " ", 2)[0]; w == "handle" || w == "index" || w == "position" {
		return fmt.Errorf("rule in chain %s at a %s: unsupported (rules are kept without handles)", c.name, w)
	}
	if err := t.checkRuleRefs(c.rest); err != nil {
		return fmt.Errorf("rule in chain %s: %w", c.name, err)
	}
	if c.verb == "insert" {
		t.rules[c.name] = append([]string{c.asAdd()}, t.rules[c.name]...)
	} else {
		t.rules[c.name] = append(t.rules[c.name], c.line)
	}
	return nil
}

// dump writes the table as the Fake's dumpTable does.
func (t *txTable) dump(b *strings.Builder) {
	names := map[string][]string{}
	for id := range t.objects {
		kind, name, _ := strings.Cut(id, " ")
		names[kind] = append(names[kind], name)
	}
	b.WriteString(t.line + "\n")
	for _, kind := range txObjectKinds {
		sort.Strings(names[kind])
		for _, name := range names[kind] {
			b.WriteString(t.objects[kind+" "+name] + "\n")
		}
	}
	for _, chain := range names["chain"] {
		for _, r := range t.rules[chain] {
			b.WriteString(r + "\n")
		}
	}
	for _, kind := range []string{"set", "map"} {
		for _, name := range names[kind] {
			for _, e := range t.elements[name] {
				b.WriteString(e.line + "\n")
			}
		}
	}
}
