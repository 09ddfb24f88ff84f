package sweep

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/scenario"
)

// TestSweepPlan: service counts above a dataplane's cap are skipped; walk
// probes come after the points, for the rule-walk dataplanes only; sync
// probes next, for every dataplane within its cap and timed-sync limit;
// lookup probes last, for the map-lookup dataplanes at sizes they do not
// sync-probe.
func TestSweepPlan(t *testing.T) {
	tests := []struct {
		name string
		spec scenario.Sweep
		want []planPoint
	}{
		{"maxServices", scenario.Sweep{Services: []int{1, 5000, 20000}, Dataplanes: []string{"iptables-nft", "nftables"},
			MaxServices: map[string]int{"nftables": 5000}},
			[]planPoint{{dataplane: "iptables-nft", services: 1}, {dataplane: "nftables", services: 1}, {dataplane: "iptables-nft", services: 5000}, {dataplane: "nftables", services: 5000}, {dataplane: "iptables-nft", services: 20000}}},
		{"walk probes", scenario.Sweep{Services: []int{1000}, Dataplanes: []string{"iptables-legacy", "nftables", "iptables-nft"}, WalkProbe: []int{4, 80000}},
			[]planPoint{{dataplane: "iptables-legacy", services: 1000}, {dataplane: "nftables", services: 1000}, {dataplane: "iptables-nft", services: 1000},
				{dataplane: "iptables-legacy", services: 4, walkProbe: true}, {dataplane: "iptables-nft", services: 4, walkProbe: true}, {dataplane: "iptables-legacy", services: 80000, walkProbe: true}, {dataplane: "iptables-nft", services: 80000, walkProbe: true}}},
		{"addrtype probes", scenario.Sweep{Services: []int{1000}, Dataplanes: []string{"iptables-legacy", "nftables"}, WalkProbe: []int{2500}, AddrTypeProbe: []int{2500}},
			[]planPoint{{dataplane: "iptables-legacy", services: 1000}, {dataplane: "nftables", services: 1000},
				{dataplane: "iptables-legacy", services: 2500, walkProbe: true}, {dataplane: "iptables-legacy", services: 2500, walkProbe: true, addrTypeRules: 2500}}},
		{"a recent probe", scenario.Sweep{Services: []int{1000}, Dataplanes: []string{"iptables-nft", "nftables"}, WalkProbe: []int{5000, 2500}, RecentProbe: 8000},
			[]planPoint{{dataplane: "iptables-nft", services: 1000}, {dataplane: "nftables", services: 1000},
				{dataplane: "iptables-nft", services: 5000, walkProbe: true}, {dataplane: "iptables-nft", services: 2500, walkProbe: true},
				{dataplane: "iptables-nft", services: 2500, walkProbe: true, recentTables: 8000}}},
		{"sync probes", scenario.Sweep{Services: []int{1000}, Dataplanes: []string{"iptables-legacy", "iptables-nft", "nftables"}, SyncProbe: []int{10000, 20000},
			SyncLimit: map[string]int{"iptables-nft": 5000}, MaxServices: map[string]int{"nftables": 10000}},
			[]planPoint{{dataplane: "iptables-legacy", services: 1000}, {dataplane: "iptables-nft", services: 1000}, {dataplane: "nftables", services: 1000},
				{dataplane: "iptables-legacy", services: 10000, syncProbe: true}, {dataplane: "nftables", services: 10000, syncProbe: true},
				{dataplane: "iptables-legacy", services: 20000, syncProbe: true}}},
		{"lookup probes", scenario.Sweep{Services: []int{1000}, Dataplanes: []string{"iptables-legacy", "nftables", "ipvs"}, Positions: []string{"last", "uniform"},
			SyncProbe: []int{10000}, LookupProbe: []int{10000, 40000}, SyncLimit: map[string]int{"nftables": 5000}, MaxServices: map[string]int{"ipvs": 20000}},
			[]planPoint{{dataplane: "iptables-legacy", services: 1000}, {dataplane: "nftables", services: 1000}, {dataplane: "ipvs", services: 1000},
				{dataplane: "iptables-legacy", services: 10000, syncProbe: true}, {dataplane: "ipvs", services: 10000, syncProbe: true},
				{dataplane: "nftables", services: 10000, syncProbe: true, lookupProbe: true}, {dataplane: "nftables", services: 40000, syncProbe: true, lookupProbe: true}}},
		{"lookup probes without the uniform position", scenario.Sweep{Services: []int{1000}, Dataplanes: []string{"nftables"}, Positions: []string{"last"}, LookupProbe: []int{10000}},
			[]planPoint{{dataplane: "nftables", services: 1000}}},
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
