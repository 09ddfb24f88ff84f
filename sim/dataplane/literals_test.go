package dataplane

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// spelledNames are the strings only this package may spell: every
// dataplane's name and every kube-proxy mode's.
func spelledNames() map[string]bool {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
	}
	for _, m := range ModeNames() {
		names[m] = true
	}
	return names
}

// literalFinding is one string literal that spells a name.
type literalFinding struct {
	pos  token.Position
	name string
}

// spelledLiterals walks the Go module at root and returns every string
// literal, outside test files, testdata, nested modules and the skipped
// directories, whose value is one of names. Struct tags are not literals
// of the program (a JSON key may be called "ipvs").
func spelledLiterals(root string, names map[string]bool, skip []string) ([]literalFinding, error) {
	var out []literalFinding
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			return skipDir(root, path, rel, d.Name(), skip)
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, literalsOf(fset, f, names)...)
		return nil
	})
	return out, err
}

// skipDir says whether the walk leaves a directory out.
func skipDir(root, path, rel, base string, skip []string) error {
	if path == root {
		return nil
	}
	if strings.HasPrefix(base, ".") || base == "testdata" || base == "vendor" {
		return filepath.SkipDir
	}
	for _, s := range skip {
		if filepath.ToSlash(rel) == s {
			return filepath.SkipDir
		}
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return filepath.SkipDir // a nested module (kubeproxy/) has its own rules
	}
	return nil
}

// literalsOf returns f's string literals, tags aside, whose value is one of
// names.
func literalsOf(fset *token.FileSet, f *ast.File, names map[string]bool) []literalFinding {
	tags := map[*ast.BasicLit]bool{}
	var out []literalFinding
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if n.Tag != nil {
				tags[n.Tag] = true
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING || tags[n] {
				return true
			}
			if v, err := strconv.Unquote(n.Value); err == nil && names[v] {
				out = append(out, literalFinding{pos: fset.Position(n.Pos()), name: v})
			}
		}
		return true
	})
	return out
}

// TestNoSpelledDataplanes fails when a non-test file of the module outside
// sim/dataplane spells a dataplane or kube-proxy mode name as a string
// literal: such a file keeps its own list, which a new dataplane silently
// misses. Read the name from this package (a constant, Info, Modes) instead.
func TestNoSpelledDataplanes(t *testing.T) {
	found, err := spelledLiterals(filepath.Join("..", ".."), spelledNames(), []string{"sim/dataplane"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: %q spelled as a literal; use sim/dataplane's constant or registry", f.pos, f.name)
	}
}

// TestSpelledLiteralsFinds plants literals in a scratch module and checks
// the walk finds exactly the ones it must.
func TestSpelledLiteralsFinds(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                     "module scratch\n",
		"plot/style.go":              "package plot\n\nvar palette = map[string]int{\"ipvs\": 1, \"other\": 2}\n",
		"plot/tags.go":               "package plot\n\ntype R struct {\n\tIPVS bool `json:\"ipvs\"`\n}\n\nconst quoted = `\"nftables\"`\n",
		"render/mode.go":             "package render\n\nfunc Mode() string { return \"iptables\" }\n",
		"render/mode_test.go":        "package render\n\nvar _ = \"ebpf\"\n",
		"render/testdata/x.go":       "package x\n\nvar _ = \"ebpf\"\n",
		"sim/dataplane/dataplane.go": "package dataplane\n\nvar _ = \"ebpf\"\n",
		"nested/go.mod":              "module nested\n",
		"nested/n.go":                "package nested\n\nvar _ = \"ebpf\"\n",
	}
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found, err := spelledLiterals(root, spelledNames(), []string{"sim/dataplane"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		rel, _ := filepath.Rel(root, f.pos.Filename)
		got = append(got, filepath.ToSlash(rel)+":"+strconv.Itoa(f.pos.Line)+":"+f.name)
	}
	want := "plot/style.go:3:ipvs render/mode.go:3:iptables"
	if strings.Join(got, " ") != want {
		t.Errorf("found %v, want %s", got, want)
	}
}
