package apply

import "testing"

func TestReplySource(t *testing.T) {
	tests := []struct {
		line, want string
		ok         bool
	}{
		{"tcp      6 8 CLOSE src=10.244.255.1 dst=10.96.0.10 sport=41234 dport=80 src=10.244.1.3 dst=10.244.255.1 sport=8080 dport=41234 [ASSURED] mark=0 use=1", "10.244.1.3:8080", true},
		{"conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.", "", false},
		{"tcp 6 117 SYN_SENT src=1.2.3.4 dst=5.6.7.8 sport=1 dport=2 [UNREPLIED]", "", false},
		{"    [NEW] tcp      6 120 SYN_SENT src=10.244.255.1 dst=10.96.0.10 sport=5000 dport=80 [UNREPLIED] src=10.244.1.2 dst=10.244.255.1 sport=8080 dport=5000", "10.244.1.2:8080", true},
	}
	for _, tt := range tests {
		got, ok := replySource(tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("replySource(%q) = %q, %v; want %q, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}
