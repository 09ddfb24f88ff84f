package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// indentationError improves a YAML syntax error that yaml.v3 reports at the
// start of a block ("did not find expected '-' indicator", "did not find
// expected key"): when a later line is indented to no level open above it,
// that line is the mistake, and the error names it.
func indentationError(raw []byte, err error) error {
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "" || !strings.Contains(fe.Msg, "did not find expected") {
		return err
	}
	line, indent, levels, ok := misindented(raw, fe.Line)
	if !ok {
		return err
	}
	return &FieldError{File: fe.File, Line: line, Msg: fmt.Sprintf("indented by %d spaces, which matches no level above it (%s)", indent, levels),
		Hint: "indent it like its siblings; YAML nests by indentation (the parser said: " + fe.Msg + ")"}
}

// misindented finds the first line from line `from` on (1-based) that is
// indented less than the line before it but to no level still open; it
// returns the line, its indentation and the levels open before it.
func misindented(raw []byte, from int) (int, int, string, bool) {
	var open []int
	for i, text := range bytes.Split(raw, []byte("\n")) {
		trimmed := strings.TrimLeft(string(text), " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indent := len(text) - len(trimmed)
		if len(open) > 0 && indent < open[len(open)-1] {
			before := levelList(open)
			for len(open) > 0 && open[len(open)-1] > indent {
				open = open[:len(open)-1]
			}
			if i+1 >= from && (len(open) == 0 || open[len(open)-1] != indent) {
				return i + 1, indent, before, true
			}
		}
		if len(open) == 0 || open[len(open)-1] < indent {
			open = append(open, indent)
		}
		if strings.HasPrefix(trimmed, "- ") {
			open = append(open, indent+2) // a sequence item's mapping
		}
	}
	return 0, 0, "", false
}

func levelList(open []int) string {
	if len(open) == 0 {
		return "none open"
	}
	parts := make([]string, len(open))
	for i, l := range open {
		parts[i] = fmt.Sprint(l)
	}
	return "open levels: " + strings.Join(parts, ", ")
}
