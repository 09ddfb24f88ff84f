package kubeproxy

import (
	"context"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/scenario"
)

// TestDataplaneCountsKubeProxysRecentLists syncs a ClientIP-affinity
// Service with two endpoints through each built driver's kube-proxy and
// counts the xt_recent lists its rules made (one per endpoint) where the
// native dataplane of the mode can count them; nftables mode has none to
// count and says so.
func TestDataplaneCountsKubeProxysRecentLists(t *testing.T) {
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{{
		Namespace: "ns1", Name: "sticky", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("172.30.0.41"),
		Ports:    []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80}},
		Affinity: model.Affinity{ClientIP: true, Timeout: model.DefaultAffinityTimeout},
		Endpoints: []model.Endpoint{
			{IP: netip.MustParseAddr("10.0.1.2"), Ready: true, Serving: true, Node: "node-1"},
			{IP: netip.MustParseAddr("10.0.1.3"), Ready: true, Serving: true, Node: "node-2"},
		},
	}}}
	v := render.LatestKubeProxy
	for _, tc := range []struct {
		dataplane dataplane.Name
		lists     int // -1: not counted
	}{
		{dataplane.IPTablesLegacy, 2},
		{dataplane.NFTables, -1},
	} {
		t.Run(string(tc.dataplane), func(t *testing.T) {
			driver(t, v) // the driver is built (or the test skips)
			ns := labtest.ScratchNetns(t)
			d, err := apply.Open(string(tc.dataplane), apply.Node{Netns: ns}, apply.Settings{Config: render.Config{Version: v}, Engine: scenario.EngineKubeProxy})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = d.Close() })
			if _, err := d.FullSync(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			lister, ok := d.(apply.RecentLister)
			if !ok {
				t.Fatalf("%T is not an apply.RecentLister", d)
			}
			n, err := lister.RecentLists()
			switch {
			case tc.lists < 0 && err == nil:
				t.Errorf("lists counted in nftables mode: %d, want an error", n)
			case tc.lists >= 0 && (err != nil || n != tc.lists):
				t.Errorf("lists after kube-proxy's sync: %d, %v; want %d", n, err, tc.lists)
			}
		})
	}
}
