package kubeproxy

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/migrate/migratetest"
	"github.com/svclab/svclab/sim/render"
)

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
