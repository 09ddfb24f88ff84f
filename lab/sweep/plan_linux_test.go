package sweep

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/scenario"
)

func TestSweepPlanHonoursMaxServices(t *testing.T) {
	spec := &scenario.Sweep{Services: []int{1, 5000, 20000}, Dataplanes: []string{"iptables-nft", "nftables"},
		MaxServices: map[string]int{"nftables": 5000}}
	got := sweepPlan(spec)
	want := []planPoint{{"iptables-nft", 1}, {"nftables", 1}, {"iptables-nft", 5000}, {"nftables", 5000}, {"iptables-nft", 20000}}
	if len(got) != len(want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("plan %v, want %v", got, want)
		}
	}
}

func TestLastUsable(t *testing.T) {
	if got := lastUsable(netip.MustParsePrefix("10.128.0.0/9")); got != netip.MustParseAddr("10.255.255.254") {
		t.Fatalf("lastUsable = %s", got)
	}
}
