package ebpf

import (
	"context"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/model"
)

// scaleModel is n synthetic services (two endpoints each, in the
// generator's endpoint range) with svc inserted in the middle.
func scaleModel(t testing.TB, n int, svc model.Service) *model.Model {
	t.Helper()
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: 2, Seed: 1,
		ReservedClusterIPs: []netip.Addr{svc.ClusterIP}})
	if err != nil {
		t.Fatal(err)
	}
	return &model.Model{Cluster: model.DefaultCluster(),
		Services: model.Insert(gen, []model.Insertion{{Before: n / 2, Service: svc}})}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// TestManyServices loads 100,000 services and sends new connections to
// the one in the middle: zero errors (timeouts included), the BPF counters
// equal to the servers' counts. "ebpf" sends 100,000 connections (about 8 s
// here), "ebpf-sock" 20,000; SVCLAB_EBPF_SCALE_CONNS sets both.
func TestManyServices(t *testing.T) {
	services := envInt(t, "SVCLAB_EBPF_SCALE_SERVICES", 100000)
	for _, c := range []struct {
		name  string
		conns int
	}{{"ebpf", 100000}, {"ebpf-sock", 20000}} {
		name, conns := c.name, envInt(t, "SVCLAB_EBPF_SCALE_CONNS", c.conns)
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 2, false)
			d := newDataplane(t, l, name)
			svc := webService("target", netip.MustParseAddr("10.96.0.10"), 0, 1)
			m := scaleModel(t, services, svc)
			ctx := context.Background()
			s, err := d.FullSync(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d services: %d map entries (%d service ports) written in %v", name, m.Services.Len(), s.Payload.Elements, s.Payload.Rules, s.Duration)
			if mm, ok := d.(interface {
				MapMemory() (map[string]uint64, error)
			}); ok {
				mem, err := mm.MapMemory()
				if err != nil {
					t.Fatal(err)
				}
				if mem[svclbMapBackends] == 0 {
					t.Errorf("no memory accounted to the backends map: %v", mem)
				}
				t.Logf("%s: map memory (memlock bytes) %v", name, mem)
			}
			count, err := d.Count(ctx, Target{Service: &svc, Port: svc.Ports[0]})
			if err != nil {
				t.Fatal(err)
			}
			before := l.accepted()
			sum, err := traffic.Run(ctx, traffic.Spec{Netns: l.topo.ClientNetns, Target: netip.AddrPortFrom(svc.ClusterIP, 80),
				Connections: conns, Concurrency: 4, Mode: traffic.ModeConnect, Timeout: 2 * time.Second}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := count.Stop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			timeouts := 0
			for _, e := range sum.FirstErrors {
				if strings.Contains(e, "timeout") {
					timeouts++
				}
			}
			t.Logf("%s: %d connections in %v (%.0f/s), %d errors (%d of the first are timeouts), BPF %v",
				name, sum.Connections, sum.Elapsed.Round(time.Millisecond), sum.ConnPerSec, sum.Errors, timeouts, got.Endpoints)
			if sum.Errors != 0 || sum.Connections != conns {
				t.Fatalf("%d of %d connections failed: %v", sum.Errors, sum.Connections, sum.FirstErrors)
			}
			// The servers count connections as they accept them; give the
			// last few a moment.
			deadline := time.Now().Add(2 * time.Second)
			for {
				after, total := l.accepted(), uint64(0)
				for ep := range after {
					total += after[ep] - before[ep]
				}
				if total >= uint64(conns) || time.Now().After(deadline) {
					for ep := range after {
						if served := after[ep] - before[ep]; got.Endpoints[ep] != served {
							t.Errorf("%s: BPF counted %d, the server accepted %d", ep, got.Endpoints[ep], served)
						}
					}
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
