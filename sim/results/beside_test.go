package results

import (
	"strings"
	"testing"
)

func TestBesideWarning(t *testing.T) {
	b := BesideRun{Run: "svl-3aba", Kind: "test", PID: 42, FirstSeen: "2026-12-05T06:17:41Z", LastSeen: "2026-12-05T06:25:03Z"}
	for _, tt := range []struct {
		name   string
		beside []BesideRun
		want   []string
	}{
		{"none", nil, nil},
		{"one", []BesideRun{b}, []string{"run svl-c91a was measured", "svl-3aba (test, pid 42, 06:17:41-06:25:03 UTC)", "machine to itself"}},
		{"a time that is not RFC 3339 is kept", []BesideRun{{Run: "svl-x", Kind: "run", PID: 1, FirstSeen: "soon", LastSeen: "later"}}, []string{"svl-x (run, pid 1, soon-later UTC)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := BesideWarning("svl-c91a", tt.beside)
			if (got == "") != (tt.want == nil) {
				t.Fatalf("BesideWarning = %q, want empty: %t", got, tt.want == nil)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("BesideWarning = %q, want it to say %q", got, w)
				}
			}
		})
	}
}
