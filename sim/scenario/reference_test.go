package scenario

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// yamlPaths lists the YAML path of every field of t, as the reference
// spells them ("services[].ports[].name").
func yamlPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		p := prefix + tag
		out = append(out, p)
		ft := t.Field(i).Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			out = append(out, yamlPaths(ft, p+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, yamlPaths(ft.Elem(), p+"[].")...)
		}
	}
	return out
}

func TestReferenceDocumentsEveryField(t *testing.T) {
	var buf bytes.Buffer
	if err := Reference(&buf); err != nil {
		t.Fatal(err)
	}
	printed := map[string]bool{}
	for _, line := range strings.Split(buf.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			printed[f[0]] = true
		}
	}
	fields := yamlPaths(reflect.TypeOf(file{}), "")
	known := map[string]bool{}
	for _, p := range fields {
		known[p] = true
		if !printed[p] {
			t.Errorf("field %s is not in the reference", p)
		}
	}
	for _, f := range reference {
		if !known[f.path] {
			t.Errorf("the reference documents %s, which is no field", f.path)
		}
		if f.typ == "" || f.doc == "" {
			t.Errorf("%s: no type or description", f.path)
		}
	}
	if len(fields) < 50 {
		t.Fatalf("only %d fields found; the walk is broken", len(fields))
	}
}

func TestReferenceRangesAreTheValidatedOnes(t *testing.T) {
	for _, f := range reference {
		if f.r == nil {
			continue
		}
		if f.r.min > f.r.max || (f.r.def != 0 && (f.r.def < f.r.min || f.r.def > f.r.max)) {
			t.Errorf("%s: default %d outside %d..%d", f.path, f.r.def, f.r.min, f.r.max)
		}
	}
	// a default from the table is what a scenario without the field gets
	sc, err := Parse("s.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Sweep.Repetitions != rangeOf("sweep.repetitions").def || sc.Fairness.Concurrency != rangeOf("fairness.concurrency").def {
		t.Fatalf("defaults %d, %d differ from the reference", sc.Sweep.Repetitions, sc.Fairness.Concurrency)
	}
}
