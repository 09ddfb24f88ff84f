package topo

import "testing"

func TestRunPrefix(t *testing.T) {
	for in, want := range map[string]string{"svl-3f9a": "svl-3f9a", "svl-3f9a-7": "svl-3f9a", "svl-3f9a-1f": "svl-3f9a", "other": "other"} {
		if got := RunPrefix(in); got != want {
			t.Errorf("RunPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}
