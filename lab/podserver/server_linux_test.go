package podserver_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/podserver"
)

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

func TestServeCountsConnectsAndKeepAliveRequests(t *testing.T) {
	f := labtest.NewVethPair(t)
	target := netip.AddrPortFrom(labtest.ServerIP, 8080)
	srv, err := podserver.Serve(f.Server, "pod-a", target)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	tests := []struct {
		name              string
		conns, perConn    int
		wantAcc, wantReqs uint64
	}{
		{"plain connects", 3, 0, 3, 0},
		{"one request per connection", 2, 1, 5, 2},
		{"keep-alive", 1, 20, 6, 22},
	}
	for _, tt := range tests {
		for range tt.conns {
			if tt.perConn == 0 {
				err = connectIn(f.Client, target)
			} else {
				var bodies []string
				bodies, err = getIn(f.Client, target, tt.perConn)
				checkBodies(t, bodies, "pod-a", target.String())
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		want := podserver.Stats{Accepted: tt.wantAcc, Requests: tt.wantReqs}
		waitFor(t, tt.name+" counts", func() bool { return srv.Stats() == want })
	}
}

// checkBodies checks that each body names the pod first and reports the
// local address the client reached.
func checkBodies(t *testing.T, bodies []string, pod, local string) {
	t.Helper()
	for _, b := range bodies {
		lines := strings.Split(b, "\n")
		if lines[0] != pod || !strings.Contains(b, "\nlocal "+local+"\n") {
			t.Fatalf("body %q: want first line %q and local %s", b, pod, local)
		}
	}
}

func TestSinkOnWildcardCountsPerLocalAddress(t *testing.T) {
	f := labtest.NewVethPair(t)
	// The sink owns 10.251.0.0/16 with a local route (AnyIP); the client
	// routes that range to the server end of the veth.
	labtest.IP(t, f.Server, "route", "add", "local", "10.251.0.0/16", "dev", "lo")
	labtest.IP(t, f.Client, "route", "add", "10.251.0.0/16", "via", labtest.ServerIP.String())
	srv, err := podserver.Serve(f.Server, "sink", netip.MustParseAddrPort("0.0.0.0:9000"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	endpoints := []string{"10.251.0.7", "10.251.3.4", "10.251.255.1", "10.251.3.4"}
	for _, ep := range endpoints {
		target := netip.AddrPortFrom(netip.MustParseAddr(ep), 9000)
		bodies, err := getIn(f.Client, target, 1)
		if err != nil {
			t.Fatalf("get %s: %v", target, err)
		}
		checkBodies(t, bodies, "sink", target.String())
	}
	want := map[netip.Addr]uint64{
		netip.MustParseAddr("10.251.0.7"):   1,
		netip.MustParseAddr("10.251.3.4"):   2,
		netip.MustParseAddr("10.251.255.1"): 1,
	}
	waitFor(t, "per-address counts", func() bool { return equalCounts(srv.AcceptedByLocalAddr(), want) })
}

func equalCounts(got, want map[netip.Addr]uint64) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

func TestGroupStatsPerPodAndClose(t *testing.T) {
	f := labtest.NewVethPair(t)
	second := netip.MustParseAddr("10.250.0.3")
	labtest.IP(t, f.Server, "addr", "add", second.String()+"/24", "dev", "veth-s")
	var g podserver.Group
	pods := map[string]netip.AddrPort{
		"pod-a": netip.AddrPortFrom(labtest.ServerIP, 80),
		"pod-b": netip.AddrPortFrom(second, 80),
	}
	for pod, addr := range pods {
		if _, err := g.Serve(f.Server, pod, addr); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Serve(f.Server, "pod-b", netip.AddrPortFrom(second, 0)); err != nil {
		t.Fatal(err) // a second port for pod-b: its counts add up
	}
	for pod, n := range map[string]int{"pod-a": 2, "pod-b": 3} {
		for range n {
			if _, err := getIn(f.Client, pods[pod], 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]podserver.Stats{"pod-a": {Accepted: 2, Requests: 4}, "pod-b": {Accepted: 3, Requests: 6}}
	waitFor(t, "group stats", func() bool {
		got := g.Stats()
		return len(got) == 2 && got["pod-a"] == want["pod-a"] && got["pod-b"] == want["pod-b"]
	})
	if err := g.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := connectIn(f.Client, pods["pod-a"]); err == nil {
		t.Fatal("connect after Close succeeded; want refused")
	}
	if len(g.Servers()) != 0 {
		t.Fatal("group still lists servers after Close")
	}
}

func TestServeInMissingNetnsFails(t *testing.T) {
	_, err := podserver.Serve("svl-t-missing", "pod-x", netip.MustParseAddrPort("127.0.0.1:0"))
	if err == nil || !strings.Contains(err.Error(), "svl-t-missing") {
		t.Fatalf("err = %v, want an error naming the netns", err)
	}
}
