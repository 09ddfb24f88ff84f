package scenario

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/svclab/svclab/scenarios"
)

// Load reads a scenario by path, or by the name of an embedded scenario.
func Load(nameOrPath string) (*Scenario, error) {
	raw, source, err := read(nameOrPath)
	if err != nil {
		return nil, err
	}
	return Parse(source, raw)
}

func read(nameOrPath string) ([]byte, string, error) {
	if raw, err := os.ReadFile(nameOrPath); err == nil {
		return raw, nameOrPath, nil
	} else if !errors.Is(err, fs.ErrNotExist) || strings.ContainsAny(nameOrPath, "/.") {
		return nil, "", &FieldError{File: nameOrPath, Msg: "cannot read the scenario: " + err.Error()}
	}
	raw, err := fs.ReadFile(scenarios.FS, nameOrPath+".yaml")
	if err != nil {
		return nil, "", &FieldError{File: nameOrPath, Msg: "no such scenario file and no embedded scenario of that name", Hint: "embedded: " + strings.Join(Names(), ", ")}
	}
	return raw, "embedded:" + nameOrPath, nil
}

// Names lists the embedded scenarios.
func Names() []string {
	entries, _ := fs.ReadDir(scenarios.FS, ".")
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(names)
	return names
}

// Parse decodes and validates a scenario's bytes. source names it in errors.
func Parse(source string, raw []byte) (*Scenario, error) {
	return parse(source, raw, nil)
}

// parse decodes raw, applies the overrides and validates the result.
func parse(source string, raw []byte, overrides []override) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, decodeError(source, err)
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, errEOF) || strings.Contains(err.Error(), "EOF") {
			return nil, &FieldError{File: source, Msg: "the file is empty", Hint: "see `svclab help scenario` for the format"}
		}
		return nil, decodeError(source, err)
	}
	if f.Name == "" {
		f.Name = strings.TrimSuffix(path.Base(strings.TrimPrefix(source, "embedded:")), ".yaml")
	}
	for _, o := range overrides {
		if err := o.apply(&f); err != nil {
			return nil, &FieldError{File: source, Field: o.field, Msg: err.Error(), Hint: "from " + o.desc}
		}
	}
	if problems := validate(&f); len(problems) > 0 {
		p := problems[0]
		fe := &FieldError{File: source, Line: locate(&root, p.path), Field: p.field(), Msg: p.msg, Hint: p.hint}
		for _, o := range overrides {
			if strings.HasSuffix(fe.Field, o.field) || strings.HasPrefix(fe.Field, o.field) {
				fe.Line, fe.Hint = 0, strings.TrimSpace(fe.Hint+"; set by "+o.desc)
			}
		}
		return nil, fe
	}
	s := typed(f, source, raw)
	s.overrides = overrides
	return s, nil
}

var errEOF = errors.New("EOF")
