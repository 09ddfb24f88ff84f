// Package golden is the test support for svclab's golden files: a test
// compares its output with a file under testdata/, and the test binary run
// with -update rewrites the file instead. Every package's tests use it, so
// there is one -update flag and one way to show a difference.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ instead of comparing")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path. With -update it writes
// got there (creating the directory) instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the output (check the change, then go test -update rewrites it):\n%s", path, Diff(string(want), string(got)))
	}
}

// Diff shows the first lines where want and got differ, with line numbers.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
