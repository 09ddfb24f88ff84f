package traffic_test

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/podserver"
)

// serve starts a pod server in the server namespace, closed when the test ends.
func serve(t testing.TB, f labtest.VethPair, pod string, addr netip.AddrPort) *podserver.Server {
	t.Helper()
	srv, err := podserver.Serve(f.Server, pod, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("close %s: %v", pod, err)
		}
	})
	return srv
}

// silentListener listens on addr in the server namespace and never accepts:
// the kernel completes handshakes, but no request is ever answered.
func silentListener(t testing.TB, f labtest.VethPair, addr netip.AddrPort) {
	t.Helper()
	serverListener(t, f, addr)
}

// serverListener listens on addr in the server namespace, closed when the
// test ends.
func serverListener(t testing.TB, f labtest.VethPair, addr netip.AddrPort) net.Listener {
	t.Helper()
	var ln net.Listener
	err := netns.Do(f.Server, func() (err error) {
		ln, err = (&net.ListenConfig{}).Listen(context.Background(), "tcp4", addr.String())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// podserverStats builds the server counts a test expects.
func podserverStats(accepted, requests uint64) podserver.Stats {
	return podserver.Stats{Accepted: accepted, Requests: requests}
}

// waitFor polls cond until it holds or a few seconds pass; server-side
// counters lag the client by the time Accept takes to run.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
