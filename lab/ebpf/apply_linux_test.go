package ebpf

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/model"
)

// TestApplyAndReset: an endpoint added by Apply takes traffic at once and
// is counted from zero within an open count; Reset empties the maps (the
// ClusterIP stops answering) and a FullSync afterwards works again.
func TestApplyAndReset(t *testing.T) {
	for _, name := range []string{"ebpf", "ebpf-sock"} {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 2, false)
			d := newDataplane(t, l, name)
			ctx := context.Background()
			svc := webService("web", netip.MustParseAddr("10.96.0.60"), 0)
			m := modelOf(webService("other", netip.MustParseAddr("10.96.0.61"), 1), svc)
			if _, err := d.FullSync(ctx, m); err != nil {
				t.Fatal(err)
			}
			count, err := d.Count(ctx, Target{Service: &svc, Port: svc.Ports[0]})
			if err != nil {
				t.Fatal(err)
			}
			before := l.accepted()
			target := netip.AddrPortFrom(svc.ClusterIP, 80)
			run := func(n int) traffic.Summary {
				sum, err := traffic.Run(ctx, traffic.Spec{Netns: l.topo.ClientNetns, Target: target, Connections: n,
					Concurrency: 2, Mode: traffic.ModeHTTP, Timeout: 2 * time.Second}, nil)
				if err != nil || sum.Errors > 0 {
					t.Fatalf("traffic: %v, %d errors %v", err, sum.Errors, sum.FirstErrors)
				}
				return sum
			}
			if sum := run(200); len(sum.PodCounts) != 1 || sum.PodCounts[l.topo.Pods[0].Netns] != 200 {
				t.Fatalf("before Apply: %v, want all on %s", sum.PodCounts, l.topo.Pods[0].Netns)
			}
			s, err := d.Apply(ctx, m, Change{Service: 1, Endpoint: model.Endpoint{IP: podIP(1), Ready: true}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Apply: %v, %+v", s.Duration, s.Payload)
			if s.Payload.Elements != 2 {
				t.Errorf("Apply wrote %d entries, want 2 (one backend slot, the service)", s.Payload.Elements)
			}
			if sum := run(1000); sum.PodCounts[l.topo.Pods[1].Netns] < 300 {
				t.Errorf("after Apply: %v, want the new pod to take about half", sum.PodCounts)
			}
			got, err := count.Stop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			after := l.accepted()
			for ep := range after {
				if served := after[ep] - before[ep]; got.Endpoints[ep] != served {
					t.Errorf("%s: BPF counted %d, the server accepted %d", ep, got.Endpoints[ep], served)
				}
			}
			if err := d.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			var k svclbSvcKey
			var v svclbSvcVal
			if lbOf(d).objs.Services.Iterate().Next(&k, &v) {
				t.Errorf("services map holds %+v after Reset", k)
			}
			if _, err := getPod(l.topo.ClientNetns, target, 0, 300*time.Millisecond); err == nil {
				t.Error("the ClusterIP still answers after Reset")
			}
			if _, err := d.FullSync(ctx, m); err != nil {
				t.Fatal(err)
			}
			if _, err := getPod(l.topo.ClientNetns, target, 0, 2*time.Second); err != nil {
				t.Errorf("after Reset and FullSync: %v", err)
			}
		})
	}
}

// TestApplyBatch: a batched change (apply.Change.More) is applied one
// addition after another, each on the model the previous one left: its
// map writes are those of the same changes applied one by one.
func TestApplyBatch(t *testing.T) {
	for _, name := range []string{"ebpf", "ebpf-sock"} {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 2, false)
			d := newDataplane(t, l, name)
			ctx := context.Background()
			m := modelOf(webService("other", netip.MustParseAddr("10.96.0.61"), 1), webService("web", netip.MustParseAddr("10.96.0.60"), 0))
			first := Change{Service: 1, Endpoint: model.Endpoint{IP: podIP(1), Ready: true}}
			second := Change{Service: 0, Endpoint: model.Endpoint{IP: podIP(0), Ready: true}}
			load := func() {
				t.Helper()
				if err := d.Reset(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := d.FullSync(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			load()
			one, err := d.Apply(ctx, m, first)
			if err != nil {
				t.Fatal(err)
			}
			two, err := d.Apply(ctx, first.After(m), second)
			if err != nil {
				t.Fatal(err)
			}
			load()
			batch := first
			batch.More = []Change{second}
			s, err := d.Apply(ctx, m, batch)
			if err != nil {
				t.Fatal(err)
			}
			if want := one.Payload.Elements + two.Payload.Elements; s.Payload.Elements != want {
				t.Errorf("the batch wrote %d entries, the two changes one by one %d", s.Payload.Elements, want)
			}
		})
	}
}
