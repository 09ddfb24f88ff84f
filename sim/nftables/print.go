package nftables

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// WriteTransaction writes rs as an `nft -f` transaction in knftables' text
// form: tables, then every chain, set and map, then elements, then rules,
// so that every reference is defined before it is used. Parsing the output
// gives back an equivalent ruleset.
func (rs *Ruleset) WriteTransaction(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, t := range rs.Tables {
		writeTable(bw, t)
	}
	return bw.Flush()
}

// writeTable writes one table's objects.
func writeTable(w *bufio.Writer, t *Table) {
	prefix := t.Family + " " + t.Name
	w.WriteString("add table " + prefix)
	if t.Comment != "" {
		w.WriteString(" { comment " + quote(t.Comment) + " ; }")
	}
	w.WriteByte('\n')
	for _, c := range t.Chains {
		w.WriteString("add chain " + prefix + " " + c.Name + chainSpec(c) + "\n")
	}
	for _, s := range t.Sets {
		kind := "set"
		if s.IsMap {
			kind = "map"
		}
		w.WriteString("add " + kind + " " + prefix + " " + s.Name + " { " + setSpec(s) + "}\n")
	}
	for _, name := range t.Counters {
		w.WriteString("add counter " + prefix + " " + name + "\n")
	}
	for _, s := range t.Sets {
		for _, e := range s.Elements {
			w.WriteString("add element " + prefix + " " + s.Name + " { " + elementText(e) + valueText(s, e) + " }\n")
		}
	}
	for _, c := range t.Chains {
		for _, r := range c.Rules {
			w.WriteString("add rule " + prefix + " " + c.Name + " " + r.Text())
			if r.Comment != "" {
				w.WriteString(" comment " + quote(r.Comment))
			}
			w.WriteByte('\n')
		}
	}
}

// chainSpec is a chain's "{ type … ; }" part, or "".
func chainSpec(c *Chain) string {
	var parts []string
	if c.IsBase() {
		parts = append(parts, "type "+c.Type+" hook "+c.Hook+" priority "+strconv.Itoa(c.Priority)+" ;")
		if c.Policy != "" && c.Policy != "accept" {
			parts = append(parts, "policy "+c.Policy+" ;")
		}
	}
	if c.Comment != "" {
		parts = append(parts, "comment "+quote(c.Comment)+" ;")
	}
	if len(parts) == 0 {
		return ""
	}
	return " { " + strings.Join(parts, " ") + " }"
}

// setSpec is the inside of a set declaration, ending with a space.
func setSpec(s *Set) string {
	var b strings.Builder
	b.WriteString("type " + strings.Join(s.KeyType, " . "))
	if s.IsMap {
		b.WriteString(" : " + s.DataType)
	}
	b.WriteString(" ; ")
	if len(s.Flags) > 0 {
		b.WriteString("flags " + strings.Join(s.Flags, ",") + " ; ")
	}
	if s.Timeout > 0 {
		b.WriteString("timeout " + strconv.FormatInt(int64(s.Timeout.Seconds()), 10) + "s ; ")
	}
	if s.Size > 0 {
		b.WriteString("size " + strconv.Itoa(s.Size) + " ; ")
	}
	if s.Comment != "" {
		b.WriteString("comment " + quote(s.Comment) + " ; ")
	}
	return b.String()
}

// elementText is an element as knftables writes it.
func elementText(e Element) string {
	s := e.KeyString()
	if e.Comment != "" {
		s += " comment " + quote(e.Comment)
	}
	if e.Timeout > 0 {
		s += " timeout " + strconv.FormatInt(int64(e.Timeout.Seconds()), 10) + "s"
	}
	return s
}

// quote puts a string in double quotes; nft strings have no escapes.
func quote(s string) string { return `"` + s + `"` }

// valueText is " : value" for a map element: a verdict, or concatenated
// data fields joined with " . ".
func valueText(s *Set, e Element) string {
	if len(e.Value) == 0 {
		return ""
	}
	if s.DataType == "verdict" {
		return " : " + strings.Join(e.Value, " ")
	}
	return " : " + strings.Join(e.Value, " . ")
}
