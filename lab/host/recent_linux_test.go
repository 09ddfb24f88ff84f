package host

import "testing"

func TestParseRecentHashSize(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"128", 128},
		{"1024", 1024},
		{"", 0},
		{"0", 0},
		{"-4", 0},
		{"many", 0},
	}
	for _, tt := range tests {
		if got := parseRecentHashSize(tt.in); got != tt.want {
			t.Errorf("parseRecentHashSize(%q) = %d; want %d", tt.in, got, tt.want)
		}
	}
}
