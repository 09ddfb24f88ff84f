package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffShowsFirstDifferences(t *testing.T) {
	tests := []struct{ want, got, has string }{
		{"a\nb\nc", "a\nB\nc", "line 2:\n- b\n+ B"},
		{"a", "a\nextra", "line 2:\n- \n+ extra"},
		{"same", "same", ""},
	}
	for _, tt := range tests {
		d := Diff(tt.want, tt.got)
		if (tt.has == "" && d != "") || !strings.Contains(d, tt.has) {
			t.Errorf("Diff(%q, %q) = %q, want it to contain %q", tt.want, tt.got, d, tt.has)
		}
	}
}

func TestCheckPassesOnEqualFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Check(t, path, []byte("hello\n"))
}
