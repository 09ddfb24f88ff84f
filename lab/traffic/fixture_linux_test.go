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

// vethFixture is two scratch namespaces joined by a veth pair:
// client 10.250.0.1/24 <-> server 10.250.0.2/24.
type vethFixture struct {
	client, server string
}

var (
	clientIP = netip.MustParseAddr("10.250.0.1")
	serverIP = netip.MustParseAddr("10.250.0.2")
)

// newVethFixture builds the fixture; the scratch namespaces (and with them
// the veth pair) are deleted when the test ends. Nothing touches the root
// namespace: the veth is created inside the client namespace.
func newVethFixture(t testing.TB) vethFixture {
	t.Helper()
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "ip")
	f := vethFixture{client: labtest.ScratchNetns(t), server: labtest.ScratchNetns(t)}
	f.ip(t, f.client, "link", "add", "veth-c", "type", "veth", "peer", "name", "veth-s", "netns", f.server)
	f.ip(t, f.client, "addr", "add", clientIP.String()+"/24", "dev", "veth-c")
	f.ip(t, f.client, "link", "set", "veth-c", "up")
	f.ip(t, f.server, "addr", "add", serverIP.String()+"/24", "dev", "veth-s")
	f.ip(t, f.server, "link", "set", "veth-s", "up")
	return f
}

// ip runs `ip ARGS...` inside namespace ns.
func (vethFixture) ip(t testing.TB, ns string, args ...string) {
	t.Helper()
	if _, err := netns.Output(ns, nil, append([]string{"ip"}, args...)...); err != nil {
		t.Fatal(err)
	}
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
