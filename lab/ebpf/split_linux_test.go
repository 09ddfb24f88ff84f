package ebpf

import (
	"context"
	"math"
	"net/netip"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/traffic"
)

// splitConnections is the acceptance run's size; SVCLAB_EBPF_SPLIT
// overrides it.
func splitConnections(t *testing.T) int {
	if v := os.Getenv("SVCLAB_EBPF_SPLIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("SVCLAB_EBPF_SPLIT=%q: %v", v, err)
		}
		return n
	}
	return 20000
}

// TestSplit sends 20,000 HTTP connections to a two-backend service through
// each dataplane: no errors, each backend's share within 0.02 of 1/2, and
// the BPF counters equal to what each server accepted.
func TestSplit(t *testing.T) {
	for _, name := range []string{"ebpf", "ebpf-clsact", "ebpf-sock"} {
		t.Run(name, func(t *testing.T) {
			l := newLab(t, 2, false)
			d := newDataplane(t, l, name)
			vip := netip.MustParseAddr("10.96.0.10")
			svc := webService("web", vip, 0, 1)
			m := modelOf(svc)
			ctx := context.Background()
			if _, err := d.FullSync(ctx, m); err != nil {
				t.Fatal(err)
			}
			count, err := d.Count(ctx, Target{Service: &svc, Port: svc.Ports[0]})
			if err != nil {
				t.Fatal(err)
			}
			before := l.accepted()
			n := splitConnections(t)
			sum, err := traffic.Run(ctx, traffic.Spec{Netns: l.topo.ClientNetns, Target: netip.AddrPortFrom(vip, 80),
				Connections: n, Concurrency: 4, Mode: traffic.ModeHTTP, Timeout: 2 * time.Second}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := count.Stop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			after := l.accepted()
			t.Logf("%s: %d connections in %v, %d errors, pods %v, BPF %v", name, sum.Connections, sum.Elapsed, sum.Errors, sum.PodCounts, got.Endpoints)
			if sum.Errors != 0 || sum.Connections != n {
				t.Fatalf("%d of %d connections failed: %v", sum.Errors, sum.Connections, sum.FirstErrors)
			}
			if got.Source != CounterSource {
				t.Errorf("source %q, want %q", got.Source, CounterSource)
			}
			for ep, server := range after {
				served := server - before[ep]
				if got.Endpoints[ep] != served {
					t.Errorf("%s: BPF counted %d, the server accepted %d", ep, got.Endpoints[ep], served)
				}
				if share := float64(served) / float64(n); math.Abs(share-0.5) > 0.02 {
					t.Errorf("%s: share %.4f, want 0.5±0.02", ep, share)
				}
			}
		})
	}
}
