package podserver_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
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

// getIn opens one connection from namespace ns to target and sends n HTTP
// GET requests over it, returning the bodies. The dial happens on the
// thread netns.Do switched into ns, so the socket lives there.
func getIn(ns string, target netip.AddrPort, n int) ([]string, error) {
	var bodies []string
	err := netns.Do(ns, func() error {
		conn, err := net.DialTimeout("tcp4", target.String(), 5*time.Second)
		if err != nil {
			return err
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		for range n {
			if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", target); err != nil {
				return err
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			bodies = append(bodies, string(body))
		}
		return nil
	})
	return bodies, err
}

// connectIn opens and closes one plain TCP connection from ns to target.
func connectIn(ns string, target netip.AddrPort) error {
	return netns.Do(ns, func() error {
		conn, err := net.DialTimeout("tcp4", target.String(), 5*time.Second)
		if err != nil {
			return err
		}
		return conn.Close()
	})
}
