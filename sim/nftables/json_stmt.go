package nftables

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// otherStmtText writes the statements besides verdicts and matches; one
// the text parser does not model is written as "json:KIND …", which it
// keeps as Unknown.
func otherStmtText(kind string, raw json.RawMessage) (string, error) {
	switch kind {
	case "dnat", "snat":
		if text, ok, err := natMapText(kind, raw); ok {
			return text, err
		}
		var n struct {
			Addr string
			Port int
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", err
		}
		to := n.Addr
		if n.Port != 0 {
			to += ":" + strconv.Itoa(n.Port)
		}
		return kind + " to " + to, nil
	case "reject":
		var r struct{ Type, Expr string }
		if err := json.Unmarshal(raw, &r); err != nil || r.Type == "" {
			return "reject", nil
		}
		return "reject with " + r.Type + " " + r.Expr, nil
	case "mangle":
		var m struct{ Key, Value json.RawMessage }
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", err
		}
		k, err := jsonValueText(m.Key, "")
		if err != nil {
			return "", err
		}
		v, err := jsonValueText(m.Value, "")
		return k + " set " + v, err
	case "limit":
		var l struct {
			Rate  int
			Per   string
			Burst int
			Inv   bool
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return "", err
		}
		over := ""
		if l.Inv {
			over = "over "
		}
		return fmt.Sprintf("limit rate %s%d/%s burst %d packets", over, l.Rate, l.Per, l.Burst), nil
	case "log":
		var l struct{ Prefix string }
		_ = json.Unmarshal(raw, &l)
		if l.Prefix == "" {
			return "log", nil
		}
		return "log prefix " + quoteString(l.Prefix), nil
	case "set":
		var s struct {
			Op, Set string
			Elem    json.RawMessage
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		e, err := jsonValueText(s.Elem, "")
		return s.Op + " " + s.Set + " { " + e + " }", err
	}
	return "json:" + kind + " " + strings.ReplaceAll(string(raw), " ", ""), nil
}

// mapText writes a vmap's data: "@name" or an anonymous map.
func mapText(raw json.RawMessage) (string, error) {
	var ref string
	if json.Unmarshal(raw, &ref) == nil {
		return ref, nil
	}
	var anon struct{ Set [][]json.RawMessage }
	if err := json.Unmarshal(raw, &anon); err != nil {
		return "", fmt.Errorf("vmap data %s: %w", raw, err)
	}
	var entries []string
	for _, kv := range anon.Set {
		if len(kv) != 2 {
			return "", fmt.Errorf("vmap entry: want [key, verdict]")
		}
		k, err := jsonValueText(kv[0], "")
		if err != nil {
			return "", err
		}
		v, err := jsonValueText(kv[1], "")
		if err != nil {
			return "", err
		}
		entries = append(entries, k+" : "+v)
	}
	return "{ " + strings.Join(entries, ", ") + " }", nil
}

// jsonValueText writes an expression: a literal, a selector, a concatenation,
// a set, a prefix, a range, a binary operation or a verdict. left is the
// selector a literal is compared with (interface names are quoted).
func jsonValueText(raw json.RawMessage, left string) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.HasSuffix(left, "ifname") {
			return quoteString(s), nil
		}
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if strings.HasSuffix(left, "mark") {
			v, _ := strconv.ParseUint(n.String(), 10, 32)
			return fmt.Sprintf("0x%08x", v), nil
		}
		return n.String(), nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		return joinValues(list, ", ", left)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", fmt.Errorf("expression %s: %w", raw, err)
	}
	for k, v := range obj {
		return exprText(k, v, left)
	}
	return "", fmt.Errorf("empty expression")
}

func joinValues(list []json.RawMessage, sep, left string) (string, error) {
	var parts []string
	for _, x := range list {
		s, err := jsonValueText(x, left)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, sep), nil
}

// exprText writes an object expression {"KIND": v}.
func exprText(kind string, v json.RawMessage, left string) (string, error) {
	var f struct {
		Protocol, Field, Key, Result, Addr, Mode string
		Flags                                    []string
		Len, Mod, Offset                         int
	}
	switch kind {
	case "payload", "meta", "ct", "fib", "prefix", "numgen":
		if err := json.Unmarshal(v, &f); err != nil {
			return "", err
		}
	}
	switch kind {
	case "payload":
		return f.Protocol + " " + f.Field, nil
	case "meta":
		return "meta " + f.Key, nil
	case "ct":
		return "ct " + f.Key, nil
	case "fib":
		return "fib " + strings.Join(f.Flags, " . ") + " " + f.Result, nil
	case "prefix":
		return fmt.Sprintf("%s/%d", f.Addr, f.Len), nil
	case "numgen":
		return fmt.Sprintf("numgen %s mod %d offset %d", f.Mode, f.Mod, f.Offset), nil
	case "concat", "range", "set", "&", "|", "^":
		var list []json.RawMessage
		if err := json.Unmarshal(v, &list); err != nil {
			var one json.RawMessage = v
			list = []json.RawMessage{one}
		}
		seps := map[string]string{"concat": " . ", "range": "-", "set": ", ", "&": " & ", "|": " | ", "^": " ^ "}
		s, err := joinValues(list, seps[kind], left)
		if kind == "set" {
			s = "{ " + s + " }"
		}
		return s, err
	case "accept", "drop", "return", "continue":
		return kind, nil
	case "jump", "goto":
		var t struct{ Target string }
		err := json.Unmarshal(v, &t)
		return kind + " " + t.Target, err
	}
	return "", fmt.Errorf("expression %q is not supported", kind)
}
