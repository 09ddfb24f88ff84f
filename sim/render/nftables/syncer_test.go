package nftables

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestSyncerReflushesStaleChains follows kube-proxy's staleChains: a
// removed service's chains are flushed by the sync that removes it and by
// every later sync until they are deleted (in their own transaction) or
// used again. The case is the smallest one the conformance suite found
// against kube-proxy v1.37.2.
func TestSyncerReflushesStaleChains(t *testing.T) {
	svc25 := model.Service{Namespace: "ns1", Name: "svc25", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("172.30.0.25"),
		Affinity: model.Affinity{ClientIP: true, Timeout: 10800}, Ports: []model.Port{{Protocol: model.UDP, Port: 2772, TargetPort: 47457}}}
	svc31 := model.Service{Namespace: "ns2", Name: "svc31", Type: model.NodePort, ClusterIP: netip.MustParseAddr("172.30.0.31"),
		Ports:     []model.Port{{Name: "p3020", Protocol: model.TCP, Port: 3020, TargetPort: 59030, NodePort: 30004}},
		Endpoints: []model.Endpoint{kubeProxyEndpoint("10.180.1.181", "node-3")}}
	svc25b := svc25
	svc25b.Endpoints = []model.Endpoint{kubeProxyEndpoint("10.180.2.178", "test-node")}
	stale := []string{"flush chain ip kube-proxy service-MFBAIIIC-ns2/svc31/tcp/p3020", "flush chain ip kube-proxy external-MFBAIIIC-ns2/svc31/tcp/p3020"}
	for _, v := range render.KubeProxyVersions {
		s := NewSyncer(kubeProxyOptions(v))
		sync := func(services ...model.Service) string {
			var b bytes.Buffer
			if _, err := s.Sync(&b, &model.Model{Cluster: kubeProxyCluster(), Services: model.Slice(services)}); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		txs := []string{sync(svc25, svc31), sync(svc25)}
		for _, l := range stale {
			if !strings.Contains(txs[1], l+"\n") {
				t.Errorf("%s: removing svc31 does not write %q:\n%s", v, l, txs[1])
			}
		}
		txs = append(txs, sync(svc25b))
		for _, l := range stale {
			if !strings.Contains(txs[2], l+"\n") {
				t.Errorf("%s: the next sync does not flush the stale chain again (%q):\n%s", v, l, txs[2])
			}
		}
		var del bytes.Buffer
		if _, err := s.DeleteStale(&del); err != nil {
			t.Fatal(err)
		}
		want := 2
		if !v.NFTablesDirectDNAT() {
			want = 3 // and the endpoint chain
		}
		if got := strings.Count(del.String(), "delete chain ip kube-proxy "); got != want {
			t.Errorf("%s: DeleteStale deletes %d chains, want %d:\n%s", v, got, want, del.String())
		}
		txs = append(txs, del.String(), sync(svc25b))
		if strings.Contains(txs[4], "flush chain") {
			t.Errorf("%s: a sync after the deletion still flushes:\n%s", v, txs[4])
		}
		checkSameState(t, string(v), txs, model.Slice{svc25b}, kubeProxyOptions(v))
	}
}
