package timeline

import (
	"net/netip"
	"testing"
)

// TestReplySources reads the endpoint (the reply's source) of each entry
// of conntrack -L's output, as conntrack-tools 1.4.7 prints it.
func TestReplySources(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []string
	}{
		{"none", "", nil},
		{"udp unreplied", "udp      17 29 src=10.244.255.1 dst=10.96.0.53 sport=40000 dport=8125 [UNREPLIED] src=10.244.1.2 dst=10.244.255.1 sport=8125 dport=40000 mark=0 use=1\n", []string{"10.244.1.2"}},
		{"two tcp", "tcp      6 118 TIME_WAIT src=10.244.255.1 dst=10.96.0.80 sport=5 dport=80 src=10.244.1.10 dst=10.244.255.1 sport=8080 dport=5 [ASSURED] mark=0 use=1\n" +
			"tcp      6 118 TIME_WAIT src=10.244.255.1 dst=10.96.0.80 sport=6 dport=80 src=10.244.1.11 dst=10.244.255.1 sport=8080 dport=6 [ASSURED] mark=0 use=1\n", []string{"10.244.1.10", "10.244.1.11"}},
		{"malformed", "udp 17 29 src=10.244.255.1 src=nonsense\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := replySources([]byte(tt.out))
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i, w := range tt.want {
				if got[i] != netip.MustParseAddr(w) {
					t.Errorf("entry %d: %s, want %s", i, got[i], w)
				}
			}
		})
	}
}
