package kubeproxy

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/migrate/migratetest"
	"github.com/svclab/svclab/sim/render"
)

// TestIPVSToItselfOnRandomClusters is the property test's half for
// kube-proxy's own IPVS proxier: migrate --from ipvs --to ipvs reports
// nothing on random clusters, every path routed through the rules the
// proxier wrote (each release's driver, one cluster each).
func TestIPVSToItselfOnRandomClusters(t *testing.T) {
	for i, v := range render.KubeProxyVersions {
		driver(t, v)
		m, err := migratetest.RandomCluster(uint64(20+i), 25)
		if err != nil {
			t.Fatal(err)
		}
		s, err := migrate.ParseSide("ipvs@" + string(v))
		if err != nil {
			t.Fatal(err)
		}
		r, err := migrate.Compare(migrate.Input{Model: m, From: s, To: s, Rules: MigrateRules})
		if err != nil {
			t.Fatalf("ipvs@%s: %v", v, err)
		}
		if r.Paths < 100 {
			t.Errorf("ipvs@%s: only %d paths", v, r.Paths)
		}
		for _, d := range r.Differences {
			t.Errorf("ipvs@%s → itself: %s: %s (%s | %s)", v, d.Path, d.Change, d.From, d.To)
		}
		t.Logf("ipvs@%s → itself: %d Services, %d paths, %d differ", v, m.Services.Len(), r.Paths, len(r.Differences))
	}
}

// BenchmarkMigrate5000 is the issue's 5,000-Service migration as `svclab
// migrate` runs it by default: kube-proxy's own code writes both sides'
// rules (iptables → nftables), svclab traces every path and explains the
// classes. results/migrate-5000 records the binary's time on this input's
// sibling (cluster-500's shape at 5,000 Services).
func BenchmarkMigrate5000(b *testing.B) {
	driver(b, render.KubeProxyVersion(""))
	m, err := migratetest.RandomCluster(1, 5000)
	if err != nil {
		b.Fatal(err)
	}
	from, err := migrate.ParseSide("iptables")
	if err != nil {
		b.Fatal(err)
	}
	to, err := migrate.ParseSide("nftables")
	if err != nil {
		b.Fatal(err)
	}
	node := migrate.Node{Other: []netip.Addr{netip.MustParseAddr("192.168.100.1")}}
	for b.Loop() {
		if _, err := migrate.Compare(migrate.Input{Model: m, From: from, To: to, Node: node, Rules: MigrateRules}); err != nil {
			b.Fatal(err)
		}
	}
}
