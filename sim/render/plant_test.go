package render

import (
	"strings"
	"testing"
)

func TestPlantScript(t *testing.T) {
	tests := []struct {
		rules     int
		wantRules int
		wantLast  string
	}{
		{rules: 0, wantRules: 0, wantLast: "type filter hook prerouting priority raw; policy accept;"},
		{rules: 1, wantRules: 1, wantLast: "ip daddr 198.18.0.0 counter drop"},
		{rules: 300, wantRules: 300, wantLast: "ip daddr 198.18.1.43 counter drop"},
		{rules: 65537, wantRules: 65537, wantLast: "ip daddr 198.19.0.0 counter drop"},
	}
	for _, tt := range tests {
		s := string(PlantScript(tt.rules))
		if got := strings.Count(s, " drop\n"); got != tt.wantRules {
			t.Errorf("PlantScript(%d) has %d rules, want %d", tt.rules, got, tt.wantRules)
		}
		lines := strings.Split(strings.TrimSpace(s), "\n")
		if last := strings.TrimSpace(lines[len(lines)-3]); last != tt.wantLast {
			t.Errorf("PlantScript(%d) last rule %q, want %q", tt.rules, last, tt.wantLast)
		}
		if !strings.HasPrefix(s, "table inet "+PlantTable+" {") {
			t.Errorf("PlantScript(%d) does not create table %s:\n%s", tt.rules, PlantTable, s)
		}
	}
}
