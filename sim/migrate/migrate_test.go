package migrate

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/svclab/svclab/sim/migrate/migratetest"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

var (
	ip  = netip.MustParseAddr
	pfx = netip.MustParsePrefix
)

// other is a second local address of the node (a second interface's).
var other = Node{Other: []netip.Addr{ip("192.168.100.1")}}

func side(t testing.TB, s string) Side {
	t.Helper()
	sd, err := ParseSide(s)
	if err != nil {
		t.Fatal(err)
	}
	return sd
}

func compare(t testing.TB, m *model.Model, from, to string, node Node) *Result {
	t.Helper()
	r, err := Compare(Input{Model: m, From: side(t, from), To: side(t, to), Node: node, Rules: NativeRules})
	if err != nil {
		t.Fatalf("%s → %s: %v", from, to, err)
	}
	return r
}

// randomCluster is migratetest.RandomCluster.
func randomCluster(t testing.TB, seed uint64, n int) *model.Model {
	t.Helper()
	m, err := migratetest.RandomCluster(seed, n)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSameSideReportsNothing: a migration from a kube-proxy to itself
// changes nothing, for random clusters, every mode and version.
func TestSameSideReportsNothing(t *testing.T) {
	sides := []string{"iptables", "nftables", "ipvs", "nftables@1.35", "iptables@1.34", "ipvs@1.36"}
	for seed := uint64(1); seed <= 4; seed++ {
		m := randomCluster(t, seed, 30)
		for _, s := range sides {
			r := compare(t, m, s, s, other)
			if r.Paths < 100 {
				t.Errorf("seed %d %s: only %d paths", seed, s, r.Paths)
			}
			for _, d := range r.Differences {
				t.Errorf("seed %d %s → itself: %s: %s (%s | %s)", seed, s, d.Path, d.Change, d.From, d.To)
			}
		}
	}
}

// TestIPVSToItselfReportsNothing is the property test's pure-simulation
// half for IPVS, on many clusters: migrate --from ipvs@V --to ipvs@V
// reports nothing for every release svclab supports, on random clusters
// of 1 to 40 Services (16 clusters: every type, both families, Local policies,
// affinity, source ranges, terminating endpoints), and every path was
// routed (none skipped as unsupported).
func TestIPVSToItselfReportsNothing(t *testing.T) {
	versions := []string{"ipvs@1.34", "ipvs@1.35", "ipvs@1.36", "ipvs@1.37"}
	for seed := uint64(100); seed < 116; seed++ {
		n := 1 + int(seed*7)%40
		m := randomCluster(t, seed, n)
		s := versions[int(seed)%len(versions)]
		r := compare(t, m, s, s, Node{})
		if r.Paths < n {
			t.Errorf("seed %d, %d Services, %s: only %d paths", seed, n, s, r.Paths)
		}
		for _, d := range r.Differences {
			t.Errorf("seed %d, %d Services, %s → itself: %s: %s (%s | %s)", seed, n, s, d.Path, d.Change, d.From, d.To)
		}
	}
}

// features is one Service per difference class the issue lists.
func features(t *testing.T) *model.Model {
	t.Helper()
	sc, err := scenario.Load("../../scenarios/objects/migration-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sc.ModelWith(0, 0, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestClassesOfTheExample: each migration of the shipped example finds
// its classes, each explained, on the Services that have the feature.
func TestClassesOfTheExample(t *testing.T) {
	tests := []struct {
		from, to string
		classes  map[string][]string // cause → Services
	}{
		{"iptables", "nftables", map[string][]string{
			"unused-clusterip-port": {"shop/web", "shop/api", "shop/ingress-local", "shop/ingress-elsewhere", "shop/cache-node-local", "shop/sticky", "shop/retired", "shop/public", "shop/dual", "shop/dns"},
			"localhost-nodeports":   {"shop/web", "shop/ingress-local", "shop/ingress-elsewhere", "shop/sticky", "shop/retired", "shop/public", "shop/dual", "shop/dns"},
			"nodeport-addresses":    {"shop/web", "shop/ingress-local", "shop/ingress-elsewhere", "shop/sticky", "shop/retired", "shop/public", "shop/dual", "shop/dns"},
		}},
		{"ipvs", "nftables", map[string][]string{
			"ipvs-external-traffic-policy": {"shop/ingress-local", "shop/ingress-elsewhere"},
			"ipvs-internal-traffic-policy": {"shop/cache-node-local"},
		}},
		{"iptables", "ipvs", map[string][]string{
			"unused-clusterip-port":        {"shop/web", "shop/api", "shop/ingress-local", "shop/ingress-elsewhere", "shop/cache-node-local", "shop/sticky", "shop/retired", "shop/public", "shop/dual", "shop/dns"},
			"localhost-nodeports":          {"shop/web", "shop/ingress-local", "shop/ingress-elsewhere", "shop/sticky", "shop/retired", "shop/public", "shop/dual", "shop/dns"},
			"ipvs-external-traffic-policy": {"shop/ingress-local", "shop/ingress-elsewhere"},
			"ipvs-internal-traffic-policy": {"shop/cache-node-local"},
		}},
		{"nftables@1.35", "nftables@1.37", map[string][]string{}},
		{"nftables", "nftables", map[string][]string{}},
	}
	m := features(t)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s→%s", tt.from, tt.to), func(t *testing.T) {
			r := compare(t, m, tt.from, tt.to, other)
			got := map[string][]string{}
			for _, c := range r.Classes {
				if c.Cause == nil {
					t.Errorf("unexplained class: %s: %s, e.g. %s: %s | %s", c.Groups[0].Kind, c.Groups[0].Change, c.Groups[0].Example.Path, c.Groups[0].Example.From, c.Groups[0].Example.To)
					continue
				}
				got[c.Cause.ID] = c.Services
			}
			for id, want := range tt.classes {
				if !sameSet(got[id], want) {
					t.Errorf("%s: Services %v, want %v", id, got[id], want)
				}
			}
			for id := range got {
				if _, ok := tt.classes[id]; !ok {
					t.Errorf("unexpected class %s on %v", id, got[id])
				}
			}
		})
	}
}

// TestCluster500: on a 500-Service cluster every difference between the
// modes is explained by a known cause, and a side against itself reports
// nothing.
func TestCluster500(t *testing.T) {
	sc, err := scenario.Load("../objects/testdata/cluster-500.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sc.ModelWith(0, 0, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{"iptables", "nftables"}, {"ipvs", "nftables"}, {"nftables@1.35", "nftables@1.37"}, {"iptables", "iptables"}, {"ipvs", "ipvs"}} {
		r := compare(t, m, p[0], p[1], other)
		if p[0] == p[1] && len(r.Differences) > 0 {
			t.Errorf("%s → itself: %d differences", p[0], len(r.Differences))
		}
		for _, c := range r.Classes {
			if c.Cause == nil {
				g := c.Groups[0]
				t.Errorf("%s → %s: unexplained class %s: %s (%d paths), e.g. %s: %s | %s", p[0], p[1], g.Kind, g.Change, c.Count, g.Example.Path, g.Example.From, g.Example.To)
			}
		}
		t.Logf("%s → %s: %d paths, %d differ, %d classes", p[0], p[1], r.Paths, len(r.Differences), len(r.Classes))
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// BenchmarkCompare5000 is the 5,000-Service migration
// (iptables → nftables, native engine; the kube-proxy engine's run is
// recorded in results/migrate-5000).
func BenchmarkCompare5000(b *testing.B) {
	m := randomCluster(b, 1, 5000)
	for b.Loop() {
		compare(b, m, "iptables", "nftables", other)
	}
}
