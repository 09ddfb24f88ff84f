package nftables

import (
	"encoding/json"
	"fmt"
	"strings"
)

// setText writes a set or map object as a listing block.
func setText(kind string, o jsonObj) (string, error) {
	var types []string
	var one string
	if json.Unmarshal(o.Type, &one) == nil {
		types = []string{one}
	} else if err := json.Unmarshal(o.Type, &types); err != nil {
		return "", fmt.Errorf("type: %w", err)
	}
	typ := strings.Join(types, " . ")
	if kind == "map" {
		typ += " : " + o.Map
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\t%s %s {\n\t\ttype %s\n", kind, o.Name, typ)
	if len(o.Flags) > 0 {
		fmt.Fprintf(&b, "\t\tflags %s\n", strings.Join(o.Flags, ","))
	}
	if o.Timeout > 0 {
		fmt.Fprintf(&b, "\t\ttimeout %ds\n", o.Timeout)
	}
	if len(o.Elem) > 0 {
		var elems []string
		for _, e := range o.Elem {
			s, err := elemText(e, kind == "map")
			if err != nil {
				return "", err
			}
			elems = append(elems, s)
		}
		fmt.Fprintf(&b, "\t\telements = { %s }\n", strings.Join(elems, ", "))
	}
	if o.Comment != "" {
		fmt.Fprintf(&b, "\t\tcomment %s\n", quoteString(o.Comment))
	}
	b.WriteString("\t}\n")
	return b.String(), nil
}

// elemText writes one element: a key, [key, value] for a map, or
// {"elem": {"val": key, "timeout": N, ...}}.
func elemText(raw json.RawMessage, isMap bool) (string, error) {
	if isMap {
		var kv []json.RawMessage
		if err := json.Unmarshal(raw, &kv); err != nil || len(kv) != 2 {
			return "", fmt.Errorf("map element %s: want [key, value]", raw)
		}
		k, err := elemText(kv[0], false)
		if err != nil {
			return "", err
		}
		v, err := jsonValueText(kv[1], "")
		return k + " : " + v, err
	}
	var wrapped struct {
		Elem *struct {
			Val     json.RawMessage `json:"val"`
			Timeout int             `json:"timeout"`
			Expires int             `json:"expires"`
		} `json:"elem"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && wrapped.Elem != nil {
		s, err := jsonValueText(wrapped.Elem.Val, "")
		if wrapped.Elem.Timeout > 0 {
			s += fmt.Sprintf(" timeout %ds", wrapped.Elem.Timeout)
		}
		if wrapped.Elem.Expires > 0 {
			s += fmt.Sprintf(" expires %ds", wrapped.Elem.Expires)
		}
		return s, err
	}
	return jsonValueText(raw, "")
}

// stmtText writes one statement or match of a rule.
func stmtText(e map[string]json.RawMessage) (string, error) {
	for kind, raw := range e {
		switch kind {
		case "accept", "drop", "return", "continue", "notrack", "masquerade":
			return kind + masqFlags(kind, raw), nil
		case "jump", "goto":
			var t struct{ Target string }
			err := json.Unmarshal(raw, &t)
			return kind + " " + t.Target, err
		case "counter":
			var name string
			if json.Unmarshal(raw, &name) == nil {
				return "counter name " + quoteString(name), nil
			}
			var c struct{ Packets, Bytes uint64 }
			err := json.Unmarshal(raw, &c)
			return fmt.Sprintf("counter packets %d bytes %d", c.Packets, c.Bytes), err
		case "match":
			var m struct {
				Op          string
				Left, Right json.RawMessage
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				return "", err
			}
			left, err := jsonValueText(m.Left, "")
			if err != nil {
				return "", err
			}
			right, err := jsonValueText(m.Right, left)
			op := m.Op + " "
			if m.Op == "==" || m.Op == "in" {
				op = ""
			}
			return left + " " + op + right, err
		case "vmap":
			var v struct{ Key, Data json.RawMessage }
			if err := json.Unmarshal(raw, &v); err != nil {
				return "", err
			}
			k, err := jsonValueText(v.Key, "")
			if err != nil {
				return "", err
			}
			d, err := mapText(v.Data)
			return k + " vmap " + d, err
		}
		return otherStmtText(kind, raw)
	}
	return "", fmt.Errorf("empty statement")
}

func masqFlags(kind string, raw json.RawMessage) string {
	if kind != "masquerade" {
		return ""
	}
	var f struct{ Flags json.RawMessage }
	if json.Unmarshal(raw, &f) != nil || f.Flags == nil {
		return ""
	}
	var one string
	var many []string
	if json.Unmarshal(f.Flags, &one) == nil {
		return " " + one
	}
	_ = json.Unmarshal(f.Flags, &many)
	return " " + strings.Join(many, ",")
}
