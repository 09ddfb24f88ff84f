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

// vethFixture is labtest's veth pair: client 10.250.0.1 <-> server 10.250.0.2.
type vethFixture struct {
	client, server string
}

var (
	clientIP = labtest.ClientIP
	serverIP = labtest.ServerIP
)

func newVethFixture(t testing.TB) vethFixture {
	t.Helper()
	p := labtest.NewVethPair(t)
	return vethFixture{client: p.Client, server: p.Server}
}

// ip runs `ip ARGS...` inside namespace ns.
func (vethFixture) ip(t testing.TB, ns string, args ...string) {
	t.Helper()
	labtest.IP(t, ns, args...)
}

// serve starts a pod server in the server namespace, closed when the test ends.
func (f vethFixture) serve(t testing.TB, pod string, addr netip.AddrPort) *podserver.Server {
	t.Helper()
	srv, err := podserver.Serve(f.server, pod, addr)
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
func (f vethFixture) silentListener(t testing.TB, addr netip.AddrPort) {
	t.Helper()
	var ln net.Listener
	err := netns.Do(f.server, func() (err error) {
		ln, err = (&net.ListenConfig{}).Listen(context.Background(), "tcp4", addr.String())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
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
