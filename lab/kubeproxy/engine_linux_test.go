package kubeproxy

import (
	"bytes"
	"context"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestEngineSync runs each built driver in sync mode in a scratch
// namespace: a full sync, then one endpoint added, checked in the kernel.
func TestEngineSync(t *testing.T) {
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{{
		Namespace: "ns3", Name: "svc3", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("172.30.0.43"),
		Ports:     []model.Port{{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80}},
		Endpoints: []model.Endpoint{{IP: netip.MustParseAddr("10.0.3.2"), Ready: true, Serving: true, Node: "node-1"}},
	}}}
	for _, v := range render.KubeProxyVersions {
		for _, tc := range []struct {
			name, mode, variant string
			list                []string
		}{
			{"iptables-legacy", kube.ModeIPTables, "legacy", []string{"iptables-legacy-save", "-t", "nat"}},
			{"nftables", kube.ModeNFTables, "", []string{"nft", "list", "table", "ip", "kube-proxy"}},
		} {
			t.Run(string(v)+"/"+tc.name, func(t *testing.T) {
				bin := driver(t, v)
				ns := labtest.ScratchNetns(t)
				e := &Engine{NS: ns, Bin: bin, Mode: tc.mode, IPTables: tc.variant}
				t.Cleanup(func() { _ = e.Close() })
				full, err := e.FullSync(context.Background(), m)
				if err != nil {
					t.Fatal(err)
				}
				part, err := e.Apply(m.Services, kube.AddEndpoint(m.Services, 0, model.Endpoint{IP: netip.MustParseAddr("10.0.3.3"), Ready: true, Serving: true, Node: "node-2"}))
				if err != nil {
					t.Fatal(err)
				}
				if full.Error != "" || part.Error != "" || !full.Full || part.Full || full.DurationNS <= 0 || part.PayloadBytes <= 0 {
					t.Fatalf("reports %+v, %+v: want a full then a partial sync without error", full, part)
				}
				state, err := netns.Output(ns, nil, tc.list...)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(state, []byte("10.0.3.3")) {
					t.Errorf("kernel state lacks the added endpoint 10.0.3.3:\n%s", state)
				}
			})
		}
	}
}
