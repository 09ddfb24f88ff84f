package nftables

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ParseJSON reads `nft -j list ruleset` output. Each object is written
// back in the listing's text form and parsed by Parse, so both forms give
// the same Ruleset; a statement the text parser does not model stays
// Unknown. Errors name the JSON object (table, chain, rule handle).
func ParseJSON(r io.Reader) (*Ruleset, error) {
	var doc struct {
		Nftables []map[string]json.RawMessage `json:"nftables"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("nft -j ruleset: %w", err)
	}
	w := &jsonWriter{tables: map[string]*jsonTable{}}
	for i, obj := range doc.Nftables {
		for kind, raw := range obj {
			if err := w.add(kind, raw); err != nil {
				return nil, fmt.Errorf("nft -j ruleset: object %d (%s): %w", i, kind, err)
			}
		}
	}
	return ParseString(w.text())
}

// jsonTable collects one table's objects as listing text.
type jsonTable struct {
	head   string
	sets   []string
	chains []string
	rules  map[string][]string
}

type jsonWriter struct {
	tables map[string]*jsonTable
	order  []string
}

// jsonObj is the fields of table, chain, set, map and rule objects.
type jsonObj struct {
	Family, Table, Name, Chain string
	Type                       json.RawMessage
	Hook, Policy, Comment      string
	Prio                       json.RawMessage
	Map                        string
	Flags                      []string
	Timeout                    int
	Elem                       []json.RawMessage
	Expr                       []map[string]json.RawMessage
	Handle                     int
}

func (w *jsonWriter) table(family, name string) *jsonTable {
	k := family + " " + name
	t := w.tables[k]
	if t == nil {
		t = &jsonTable{head: "table " + k, rules: map[string][]string{}}
		w.tables[k] = t
		w.order = append(w.order, k)
	}
	return t
}

func (w *jsonWriter) add(kind string, raw json.RawMessage) error {
	var o jsonObj
	if kind == "metainfo" {
		return nil
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return err
	}
	switch kind {
	case "table":
		w.table(o.Family, o.Name)
	case "chain":
		w.table(o.Family, o.Table).chains = append(w.table(o.Family, o.Table).chains, o.Name+"\x00"+chainHead(o))
	case "set", "map":
		s, err := setText(kind, o)
		if err != nil {
			return fmt.Errorf("%s %s: %w", kind, o.Name, err)
		}
		t := w.table(o.Family, o.Table)
		t.sets = append(t.sets, s)
	case "counter":
		t := w.table(o.Family, o.Table)
		t.sets = append(t.sets, "\tcounter "+o.Name+" {\n\t}\n")
	case "rule":
		var parts []string
		for _, e := range o.Expr {
			s, err := stmtText(e)
			if err != nil {
				return fmt.Errorf("rule %d of chain %s: %w", o.Handle, o.Chain, err)
			}
			parts = append(parts, s)
		}
		if o.Comment != "" {
			parts = append(parts, "comment "+quoteString(o.Comment))
		}
		t := w.table(o.Family, o.Table)
		t.rules[o.Chain] = append(t.rules[o.Chain], strings.Join(parts, " "))
	}
	return nil
}

func chainHead(o jsonObj) string {
	if o.Hook == "" {
		return ""
	}
	var typ string
	_ = json.Unmarshal(o.Type, &typ)
	policy := o.Policy
	if policy == "" {
		policy = "accept"
	}
	return fmt.Sprintf("type %s hook %s priority %s; policy %s;", typ, o.Hook, strings.Trim(string(o.Prio), `"`), policy)
}

// text is the listing of everything collected.
func (w *jsonWriter) text() string {
	var b strings.Builder
	for _, k := range w.order {
		t := w.tables[k]
		b.WriteString(t.head + " {\n")
		for _, s := range t.sets {
			b.WriteString(s)
		}
		for _, c := range t.chains {
			name, head, _ := strings.Cut(c, "\x00")
			b.WriteString("\tchain " + name + " {\n")
			if head != "" {
				b.WriteString("\t\t" + head + "\n")
			}
			for _, r := range t.rules[name] {
				b.WriteString("\t\t" + r + "\n")
			}
			b.WriteString("\t}\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func quoteString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
