package topo

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
)

// twoPodSpec is the topology the connectivity tests share: two pods and the
// client all inside the sink range, so longest-prefix routing and the sink's
// exceptions are exercised.
func twoPodSpec(prefix string) Spec {
	return Spec{
		Prefix: prefix,
		Pods: []Pod{
			{Name: "pod-a", IP: netip.MustParseAddr("10.244.0.10")},
			{Name: "pod-b", IP: netip.MustParseAddr("10.244.1.10")},
		},
		SinkPrefixes: []netip.Prefix{netip.MustParsePrefix("10.128.0.0/9")},
	}
}

// buildForTest builds spec and closes the topology when the test ends.
func buildForTest(t *testing.T, spec Spec) *Topology {
	t.Helper()
	labtest.RequireRoot(t)
	topo, err := Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := topo.Close(); err != nil {
			t.Errorf("close topology %s: %v", spec.Prefix, err)
		}
	})
	return topo
}

// serveName listens on addr inside the named namespace and answers every
// connection with body; the listener is opened on a thread in the namespace
// and served from an ordinary goroutine.
func serveName(t *testing.T, nsName, addr, body string) {
	t.Helper()
	var ln net.Listener
	err := netns.Do(nsName, func() error {
		var err error
		ln, err = net.Listen("tcp4", addr)
		return err
	})
	if err != nil {
		t.Fatalf("listen on %s in netns %s: %v", addr, nsName, err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = conn.Write([]byte(body))
			conn.Close()
		}
	}()
}

// fetch connects from the named namespace to addr ("IP:port", IPv4) and
// returns what the server sent before closing.
func fetch(nsName, addr string) (string, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return "", err
	}
	return fetchFrom(nsName, netip.Addr{}, ap)
}

// checkFetches dials each target from client and compares the answers.
func checkFetches(t *testing.T, client string, wants map[string]string) {
	t.Helper()
	for addr, want := range wants {
		got, err := fetch(client, addr)
		if err != nil || got != want {
			t.Errorf("from %s to %s: got %q, %v; want %q", client, addr, got, err, want)
		}
	}
}

// addDNAT appends one DNAT rule to the node's nat chain.
func addDNAT(t *testing.T, topo *Topology, chain, from, to string) {
	t.Helper()
	labtest.RequireBinary(t, "iptables-nft")
	host, port, _ := net.SplitHostPort(from)
	_, err := netns.Output(topo.NodeNetns, nil, "iptables-nft", "-w", "-t", "nat", "-A", chain,
		"-d", host, "-p", "tcp", "--dport", port, "-j", "DNAT", "--to-destination", to)
	if err != nil {
		t.Fatal(err)
	}
}

func TestClientPodReachesPodsSinkAndServices(t *testing.T) {
	topo := buildForTest(t, twoPodSpec(NewPrefix()))
	serveName(t, topo.Pods[0].Netns, ":8080", "pod-a")
	serveName(t, topo.Pods[1].Netns, ":8080", "pod-b")
	serveName(t, topo.SinkNetns, "0.0.0.0:8080", "sink")
	addDNAT(t, topo, "PREROUTING", "10.96.0.10:80", "10.244.0.10:8080")
	checkFetches(t, topo.ClientNetns, map[string]string{
		"10.244.0.10:8080":    "pod-a", // a pod /32 beats the sink's /9
		"10.244.1.10:8080":    "pod-b",
		"10.128.0.1:8080":     "sink",
		"10.200.17.3:8080":    "sink",
		"10.255.255.254:8080": "sink",
		"10.96.0.10:80":       "pod-a", // DNAT in the node's PREROUTING
	})
}

func TestUnDNATedClusterIPFailsFast(t *testing.T) {
	for _, onNode := range []bool{false, true} {
		spec := twoPodSpec(NewPrefix())
		spec.ClientOnNode = onNode
		topo := buildForTest(t, spec)
		_, err := fetch(topo.ClientNetns, "10.96.0.11:80")
		if !errors.Is(err, syscall.ENETUNREACH) && !errors.Is(err, syscall.EHOSTUNREACH) {
			t.Errorf("ClientOnNode=%v: connect to a ClusterIP without rules: got %v, want an ICMP unreachable from the node", onNode, err)
		}
	}
}

func TestClientOnNodeTakesOutputPath(t *testing.T) {
	spec := twoPodSpec(NewPrefix())
	spec.ClientOnNode = true
	topo := buildForTest(t, spec)
	if topo.ClientNetns != topo.NodeNetns {
		t.Fatalf("ClientNetns = %s, want the node netns %s", topo.ClientNetns, topo.NodeNetns)
	}
	serveName(t, topo.Pods[0].Netns, ":8080", "pod-a")
	serveName(t, topo.SinkNetns, ":8080", "sink")
	addDNAT(t, topo, "OUTPUT", "10.96.0.10:80", "10.244.0.10:8080")
	checkFetches(t, topo.ClientNetns, map[string]string{
		"10.244.0.10:8080": "pod-a",
		"10.128.9.9:8080":  "sink",
		"10.96.0.10:80":    "pod-a", // DNAT in the node's OUTPUT
	})
}

func TestSysctlsAreSetPerNamespace(t *testing.T) {
	topo := buildForTest(t, twoPodSpec(NewPrefix()))
	tests := []struct {
		netns, key, want string
	}{
		{topo.NodeNetns, "net.ipv4.ip_forward", "1"},
		{topo.NodeNetns, "net.ipv4.conf.all.rp_filter", "0"},
		{topo.NodeNetns, "net.ipv4.conf." + topo.Pods[0].HostVeth + ".rp_filter", "0"},
		{topo.ClientNetns, "net.ipv4.ip_local_port_range", "1024\t65535"},
		{topo.ClientNetns, "net.ipv4.tcp_tw_reuse", "1"},
		{topo.SinkNetns, "net.ipv4.conf.eth0.rp_filter", "0"},
	}
	for _, tc := range tests {
		var got string
		err := netns.Do(tc.netns, func() error {
			b, err := os.ReadFile(sysctlPath(tc.key))
			got = strings.TrimSpace(string(b))
			return err
		})
		if err != nil || got != tc.want {
			t.Errorf("%s in %s = %q, %v; want %q", tc.key, tc.netns, got, err, tc.want)
		}
	}
}

func TestNodeHasNoLinkToTheHost(t *testing.T) {
	topo := buildForTest(t, twoPodSpec(NewPrefix()))
	out, err := netns.Output(topo.NodeNetns, nil, "ip", "-o", "link")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if want := 1 + 1 + len(topo.Pods) + 1; len(lines) != want { // lo, client, pods, sink
		t.Errorf("node netns has %d links, want %d:\n%s", len(lines), want, out)
	}
	for _, line := range lines[1:] {
		if !strings.Contains(line, "link-netns "+topo.Prefix+"-") {
			t.Errorf("node link's peer is not in a lab namespace: %s", line)
		}
	}
}
