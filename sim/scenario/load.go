package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/svclab/svclab/scenarios"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/suggest"
)

// Load reads a scenario by path, or by the name of an embedded scenario.
// Files larger than MaxFileSize are refused before they are read whole.
func Load(nameOrPath string) (*Scenario, error) {
	raw, source, err := read(nameOrPath)
	if err != nil {
		return nil, err
	}
	return Parse(source, raw)
}

func read(nameOrPath string) ([]byte, string, error) {
	raw, err := readLimited(nameOrPath)
	if err == nil {
		return raw, nameOrPath, nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return nil, "", err
	}
	if !errors.Is(err, fs.ErrNotExist) || strings.ContainsAny(nameOrPath, "/.") {
		return nil, "", &FieldError{File: nameOrPath, Msg: "cannot read the scenario: " + err.Error()}
	}
	raw, err = fs.ReadFile(scenarios.FS, nameOrPath+".yaml")
	if err != nil {
		hint := "embedded: " + strings.Join(Names(), ", ")
		if c, ok := suggest.Closest(nameOrPath, Names()); ok {
			hint = "did you mean " + c + "? " + hint
		}
		return nil, "", &FieldError{File: nameOrPath, Msg: "no such scenario file and no embedded scenario of that name", Hint: hint}
	}
	return raw, "embedded:" + nameOrPath, nil
}

// readLimited reads at most MaxObjectsFileSize bytes of a file, and fails
// with a *FieldError on a larger one (also when it is a pipe); parse refuses
// a scenario (not a file of Kubernetes objects) over MaxFileSize.
func readLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxObjectsFileSize {
		return nil, tooLarge(name, st.Size(), MaxObjectsFileSize)
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxObjectsFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxObjectsFileSize {
		return nil, tooLarge(name, -1, MaxObjectsFileSize)
	}
	return raw, nil
}

func tooLarge(source string, size int64, limit int) error {
	msg := fmt.Sprintf("the file is larger than %d MiB", limit>>20)
	if size >= 0 {
		msg = fmt.Sprintf("the file has %d bytes, more than %d MiB", size, limit>>20)
	}
	return &FieldError{File: source, Msg: msg, Hint: "a scenario asks for many services with synthetic: or sweep:, it does not list them"}
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
// More than MaxFileSize bytes, or more than one YAML document, is an error.
// Bytes that are Kubernetes objects (objects.Sniff: a List, or Service,
// EndpointSlice and Node objects) are a scenario of those services with
// every default; a scenario's cluster.objects names such a file, read
// relative to source.
func Parse(source string, raw []byte) (*Scenario, error) {
	return parse(source, raw, nil)
}

// parse decodes raw, applies the overrides and validates the result.
func parse(source string, raw []byte, overrides []override) (*Scenario, error) {
	if len(raw) <= MaxObjectsFileSize && objects.Sniff(raw) {
		return parseObjects(source, raw, overrides)
	}
	if len(raw) > MaxFileSize {
		return nil, tooLarge(source, int64(len(raw)), MaxFileSize)
	}
	if n := bytes.Count(raw, []byte("\n")) + bytes.Count(raw, []byte(",")); n > MaxItems {
		return nil, &FieldError{File: source, Msg: fmt.Sprintf("the file has %d lines and list items, more than %d", n, MaxItems), Hint: "a scenario asks for many services with synthetic: or sweep:, it does not list them"}
	}
	f, err := decode(source, raw)
	if err != nil {
		return nil, err
	}
	if f.Cluster.Objects != "" {
		if f.loaded, err = loadReferenced(source, raw, f.Cluster.Objects); err != nil {
			return nil, err
		}
	}
	return finish(source, raw, f, overrides)
}

// finish names, overrides, validates and types a decoded file.
func finish(source string, raw []byte, f file, overrides []override) (*Scenario, error) {
	if f.Name == "" {
		f.Name = safeName(strings.TrimSuffix(path.Base(strings.TrimPrefix(source, "embedded:")), ".yaml"))
	}
	for _, o := range overrides {
		if err := o.apply(&f); err != nil {
			return nil, &FieldError{File: source, Field: o.field, Msg: err.Error(), Hint: "from " + o.desc}
		}
	}
	if problems := validate(&f); len(problems) > 0 {
		return nil, locateProblem(source, raw, problems[0], overrides)
	}
	s := typed(f, source, raw)
	s.overrides = overrides
	return s, nil
}

// decode decodes the one YAML document of raw strictly (unknown fields are
// errors).
func decode(source string, raw []byte) (file, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return f, &FieldError{File: source, Msg: "the file is empty", Hint: "see `svclab help scenario` for the format"}
		}
		return f, indentationError(raw, decodeError(source, err))
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return f, nil
	case err != nil:
		return f, decodeError(source, err)
	}
	line := next.Line
	if next.Kind == yaml.DocumentNode && len(next.Content) > 0 {
		line = next.Content[0].Line
	}
	return f, &FieldError{File: source, Line: line, Msg: "a second YAML document", Hint: "a scenario file is one document: remove the `---` and what follows"}
}

// locateProblem turns a validation problem into a *FieldError with the line
// of its field (the document is parsed again only now, to find it).
func locateProblem(source string, raw []byte, p pathError, overrides []override) error {
	var root yaml.Node
	_ = yaml.Unmarshal(raw, &root)
	fe := &FieldError{File: source, Line: locate(&root, p.path), Field: p.field(), Msg: p.msg, Hint: p.hint}
	for _, o := range overrides {
		if strings.HasSuffix(fe.Field, o.field) || strings.HasPrefix(fe.Field, o.field) {
			hint, _, _ := strings.Cut(fe.Hint, ", or leave the field out")
			fe.Line, fe.Hint = 0, strings.TrimSpace(hint+"; set by "+o.desc)
		}
	}
	return fe
}
