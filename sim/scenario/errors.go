package scenario

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/svclab/svclab/sim/apicheck"
)

// FieldError is a problem with one field of a scenario file.
type FieldError struct {
	File  string // path or "embedded:NAME"
	Line  int    // 1-based; 0 when unknown
	Field string // e.g. "services[1].clusterIP"
	Msg   string // what is wrong
	Hint  string // what to do, if known
}

// Error formats "file:line: field: message (hint)", on one line (control
// and bidi characters escaped).
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return apicheck.OneLine(b.String())
}

var (
	unknownFieldRE = regexp.MustCompile(`line (\d+): field (\S+) not found in type scenario\.(\w+)`)
	yamlLineRE     = regexp.MustCompile(`line (\d+): (.*)`)
)

// typeByName lists the schema types whose fields an unknown-field error
// should suggest.
var typeByName = map[string]reflect.Type{
	"file": reflect.TypeOf(file{}), "clusterSpec": reflect.TypeOf(clusterSpec{}),
	"service": reflect.TypeOf(service{}), "port": reflect.TypeOf(port{}),
	"synthetic": reflect.TypeOf(synthetic{}), "fairnessSpec": reflect.TypeOf(fairnessSpec{}),
	"sweepSpec": reflect.TypeOf(sweepSpec{}), "endpoint": reflect.TypeOf(endpoint{}),
	"mixSpec": reflect.TypeOf(mixSpec{}), "timelineSpec": reflect.TypeOf(timelineSpec{}),
	"trafficSpec": reflect.TypeOf(trafficSpec{}), "timelineEvent": reflect.TypeOf(timelineEvent{}),
	"scaleEvent": reflect.TypeOf(scaleEvent{}), "rollingEvent": reflect.TypeOf(rollingEvent{}),
	"stormEvent": reflect.TypeOf(stormEvent{}), "deleteEvent": reflect.TypeOf(deleteEvent{}),
	"changeEvent": reflect.TypeOf(changeEvent{}), "restartEvent": reflect.TypeOf(restartEvent{}),
	"deletePodEvent": reflect.TypeOf(deletePodEvent{}),
}

// yamlFields returns the YAML keys a schema type accepts.
func yamlFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]; tag != "" && tag != "-" {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}

// decodeError turns a yaml.v3 error into a FieldError (the first problem).
func decodeError(file string, err error) error {
	msg := err.Error()
	if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		hint := "remove it or fix its spelling"
		if t, ok := typeByName[m[3]]; ok {
			hint = "allowed here: " + strings.Join(yamlFields(t), ", ")
		}
		return &FieldError{File: file, Line: line, Field: m[2], Msg: "unknown field", Hint: hint}
	}
	var te *yaml.TypeError
	if asTypeError(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FieldError{File: file, Line: line, Msg: m[2]}
	}
	return &FieldError{File: file, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

func asTypeError(err error, target **yaml.TypeError) bool {
	te, ok := err.(*yaml.TypeError)
	if ok {
		*target = te
	}
	return ok
}

// pathError is a validation problem located by its path in the document.
type pathError struct {
	path []any // string keys and int indexes
	msg  string
	hint string
}

func fieldAt(path ...any) func(msg, hint string) pathError {
	return func(msg, hint string) pathError { return pathError{path: path, msg: msg, hint: hint} }
}

func (p pathError) field() string {
	var b strings.Builder
	for _, k := range p.path {
		switch k := k.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		}
	}
	return b.String()
}

// locate resolves a path to the line of the deepest node that exists.
func locate(root *yaml.Node, path []any) int {
	n := root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	for _, k := range path {
		n = child(n, k)
		if n == nil {
			break
		}
		line = n.Line
	}
	return line
}

func child(n *yaml.Node, key any) *yaml.Node {
	if n == nil {
		return nil
	}
	switch k := key.(type) {
	case int:
		if n.Kind == yaml.SequenceNode && k < len(n.Content) {
			return n.Content[k]
		}
	case string:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					return n.Content[i+1]
				}
			}
		}
	}
	return nil
}
