package sweep

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/scenario"
)

// TestSweepPlan: service counts above a dataplane's cap are skipped; walk
// probes come after the points, for the rule-walk dataplanes only.
func TestSweepPlan(t *testing.T) {
	tests := []struct {
		name string
		spec scenario.Sweep
		want []planPoint
	}{
		{"maxServices", scenario.Sweep{Services: []int{1, 5000, 20000}, Dataplanes: []string{"iptables-nft", "nftables"},
			MaxServices: map[string]int{"nftables": 5000}},
			[]planPoint{{"iptables-nft", 1, false}, {"nftables", 1, false}, {"iptables-nft", 5000, false}, {"nftables", 5000, false}, {"iptables-nft", 20000, false}}},
		{"walk probes", scenario.Sweep{Services: []int{1000}, Dataplanes: []string{"iptables-legacy", "nftables", "iptables-nft"}, WalkProbe: []int{4, 80000}},
			[]planPoint{{"iptables-legacy", 1000, false}, {"nftables", 1000, false}, {"iptables-nft", 1000, false},
				{"iptables-legacy", 4, true}, {"iptables-nft", 4, true}, {"iptables-legacy", 80000, true}, {"iptables-nft", 80000, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sweepPlan(&tt.spec); !slices.Equal(got, tt.want) {
				t.Fatalf("plan %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLastUsable(t *testing.T) {
	if got := lastUsable(netip.MustParsePrefix("10.128.0.0/9")); got != netip.MustParseAddr("10.255.255.254") {
		t.Fatalf("lastUsable = %s", got)
	}
}
