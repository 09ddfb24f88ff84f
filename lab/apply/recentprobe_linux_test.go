package apply

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
)

// TestRecentProbeCreatesItsLists restores a recent probe with each
// iptables backend and reads the kernel's xt_recent lists back: the
// probe's lists and the one its rules check, no more.
func TestRecentProbeCreatesItsLists(t *testing.T) {
	const tables = 50
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: 20, EndpointsPerService: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
	probe, _, err := iptables.RenderWalkProbeWith(m, iptables.DefaultOptions(), []netip.Addr{gen.At(19).ClusterIP}, iptables.WalkProbeExtras{RecentTables: tables})
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"legacy", "nft"} {
		t.Run(backend, func(t *testing.T) {
			labtest.RequireBinary(t, "iptables-"+backend+"-restore")
			ns := labtest.ScratchNetns(t)
			ipt, err := NewIPTables(ns, "iptables-"+backend)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ipt.Restore(probe, false); err != nil {
				t.Fatal(err)
			}
			out, err := netns.Output(ns, nil, "ls", "/proc/net/xt_recent")
			if err != nil {
				t.Fatal(err)
			}
			lists := strings.Fields(string(out))
			if len(lists) != tables+1 || !slices.Contains(lists, iptables.RecentProbeList) {
				t.Errorf("%d xt_recent lists (%v…), want %d and %s among them", len(lists), lists[:min(3, len(lists))], tables+1, iptables.RecentProbeList)
			}
		})
	}
}
