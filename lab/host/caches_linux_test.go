package host

import "testing"

func TestParseCacheSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"48K", 48 << 10, true},
		{"1024 KB", 1 << 20, true},
		{"32M", 32 << 20, true},
		{"", 0, false},
		{"0K", 0, false},
		{"lots", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseCacheSize(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseCacheSize(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
