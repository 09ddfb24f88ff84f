package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir, path string) // what is there before
	}{
		{"new file", func(*testing.T, string, string) {}},
		{"replaces a file", func(t *testing.T, _, path string) { mustWrite(t, path, "old") }},
		{"replaces a link, not its target", func(t *testing.T, dir, path string) {
			mustWrite(t, filepath.Join(dir, "victim"), "keep")
			if err := os.Symlink(filepath.Join(dir, "victim"), path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "meta.json")
			tt.prepare(t, dir, path)
			if err := Write(path, []byte("new"), 0o600); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(path); err != nil || string(data) != "new" {
				t.Fatalf("%s holds %q, %v", path, data, err)
			}
			if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
				t.Fatalf("%s: %v, %v", path, st.Mode(), err)
			}
			if data, err := os.ReadFile(filepath.Join(dir, "victim")); err == nil && string(data) != "keep" {
				t.Fatalf("written through the link: the victim holds %q", data)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(m) > 0 {
				t.Fatalf("left %v", m)
			}
		})
	}
}

func TestWriteIntoMissingDirectoryFails(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "meta.json"), []byte("x"), 0o644); err == nil {
		t.Fatal("wrote into a directory that does not exist")
	}
}

func TestRealDirRefusesALink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "plots")); err != nil {
		t.Fatal(err)
	}
	if err := RealDir(filepath.Join(dir, "plots")); err == nil {
		t.Fatal("RealDir accepted a symbolic link")
	}
	if err := RealDir(filepath.Join(dir, "real", "plots")); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
