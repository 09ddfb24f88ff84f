package suggest

import "testing"

func TestClosest(t *testing.T) {
	commands := []string{"run", "render", "report", "trace", "analyze", "gate", "compare", "verify-trace", "import"}
	scenarios := []string{"split-2", "split-5", "sweep-quick", "sweep-full", "keepalive-skew", "ci-smoke"}
	tests := []struct {
		word       string
		candidates []string
		want       string
		wantOK     bool
	}{
		{"rnu", commands, "run", true},
		{"rendr", commands, "render", true},
		{"Gate", commands, "gate", true},
		{"verifytrace", commands, "verify-trace", true},
		{"anal", commands, "analyze", true},
		{"split2", scenarios, "split-2", true},
		{"sweep-quik", scenarios, "sweep-quick", true},
		{"keepalive", scenarios, "keepalive-skew", true},
		{"sweep", scenarios, "", false}, // two prefixed candidates, both far
		{"xyzzy", commands, "", false},
		{"", commands, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got, ok := Closest(tt.word, tt.candidates)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestHint(t *testing.T) {
	if got := Hint("gaet", []string{"gate"}); got != " (did you mean gate?)" {
		t.Errorf("Hint = %q", got)
	}
	if got := Hint("zzz", []string{"gate"}); got != "" {
		t.Errorf("Hint = %q", got)
	}
}
