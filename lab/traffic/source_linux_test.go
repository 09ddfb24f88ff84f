package traffic_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/traffic"
)

// TestSourceBindsTheClientAddressAndTheServerCountsIt runs from each of two
// client addresses and checks the pod server's per-source counts.
func TestSourceBindsTheClientAddressAndTheServerCountsIt(t *testing.T) {
	f := labtest.NewVethPair(t)
	other := netip.MustParseAddr("10.250.0.9")
	labtest.IP(t, f.Client, "addr", "add", other.String()+"/24", "dev", "veth-c")
	target := netip.AddrPortFrom(labtest.ServerIP, 8080)
	srv := serve(t, f, "pod-a", target)
	for src, n := range map[netip.Addr]int{labtest.ClientIP: 7, other: 5} {
		spec := traffic.Spec{Netns: f.Client, Target: target, Source: src, Connections: n, Concurrency: 2, Mode: traffic.ModeHTTP}
		if sum, err := traffic.Run(context.Background(), spec, nil); err != nil || sum.Errors != 0 {
			t.Fatalf("run from %s: %v (summary %+v)", src, err, sum)
		}
	}
	waitFor(t, "per-source counts", func() bool {
		got := srv.AcceptedBySource()
		return len(got) == 2 && got[labtest.ClientIP] == 7 && got[other] == 5
	})
}

func TestSourceOfTheOtherFamilyIsRefused(t *testing.T) {
	spec := traffic.Spec{Target: netip.MustParseAddrPort("10.0.0.1:80"), Source: netip.MustParseAddr("fd00::1"), Connections: 1, Mode: traffic.ModeConnect}
	if _, err := traffic.Run(context.Background(), spec, nil); err == nil {
		t.Fatal("a source of another family than the target was accepted")
	}
}
