package kubeproxy

import (
	"context"
	"net/netip"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestLoopClient runs each built driver in loop mode in a scratch
// namespace through the client: an endpoint added as an event is synced
// by kube-proxy's loop and observed in its programming histogram, a
// restart starts from the objects as last sent (a full first sync, the
// cold start measured), and Stop returns the final snapshot.
func TestLoopClient(t *testing.T) {
	svc := func(ips ...string) *model.Service {
		s := &model.Service{Namespace: "ns1", Name: "dns", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("10.96.0.10"),
			Ports: []model.Port{{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 53}}}
		for _, ip := range ips {
			s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Serving: true, Node: "node-1"})
		}
		return s
	}
	for _, v := range render.KubeProxyVersions {
		t.Run(string(v), func(t *testing.T) {
			bin := driver(t, v)
			ns := labtest.ScratchNetns(t)
			req, err := kube.NewRequest(kube.ModeNFTables, render.Config{}, &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{*svc("10.0.3.2")}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			opt := LoopOptions{NS: ns, Bin: bin}
			lr := &kube.LoopRequest{Request: *req, MinSyncPeriod: metav1.Duration{Duration: 10 * time.Millisecond}}
			l, err := StartLoop(ctx, opt, lr)
			if err != nil {
				t.Fatal(err)
			}
			es := kube.EndpointSlice(svc("10.0.3.2", "10.0.3.3"))
			kube.StampTriggerTime(es, time.Now())
			if err := l.Send(kube.Op{Action: kube.Update, Object: kube.Raw(es)}); err != nil {
				t.Fatal(err)
			}
			syncs, err := l.WaitSyncs(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !syncs[0].Full || syncs[1].Full || syncs[1].Programmed != 1 || syncs[1].Error != "" {
				t.Errorf("syncs %+v: want a full first sync, then a partial one programming the event", syncs)
			}
			m, err := l.Metrics(ctx)
			if h, ok := m.Histogram(kube.MetricNetworkProgramming); err != nil || !ok || h.Count != 1 {
				t.Errorf("snapshot: %v, programming histogram %+v; want 1 observation", err, h)
			}
			l2, err := l.Restart(ctx, opt)
			if err != nil {
				t.Fatal(err)
			}
			first := l2.Syncs()[0]
			if !first.Full || l2.ColdStart <= 0 || l2.ColdStart < first.Duration() {
				t.Errorf("after restart: first sync %+v, cold start %v; want a full sync within the cold start", first, l2.ColdStart)
			}
			final, err := l2.Stop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !final.Final || final.Syncs != 1 {
				t.Errorf("final snapshot %+v: want final after 1 sync", final)
			}
			// A restarted kube-proxy counts from zero: one full sync, and no
			// programming observation (the stamps predate it).
			if h, ok := final.Histogram(kube.MetricFullSyncDuration); !ok || h.Count != 1 {
				t.Errorf("final %s = %+v (%v); want 1 sync", kube.MetricFullSyncDuration, h, ok)
			}
			if h, ok := final.Histogram(kube.MetricNetworkProgramming); ok && h.Count != 0 {
				t.Errorf("final %s = %+v after a restart; want none", kube.MetricNetworkProgramming, h)
			}
			t.Logf("%s: cold start %v (first sync %v), restart cold start %v (first sync %v, %d objects)",
				v, l.ColdStart, syncs[0].Duration(), l2.ColdStart, first.Duration(), len(l2.Objects().Items))
		})
	}
}
