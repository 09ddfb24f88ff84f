package topo

import (
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
)

var (
	extInside  = netip.MustParseAddr("203.0.113.10")
	extOutside = netip.MustParseAddr("198.51.100.10")
	extV6      = netip.MustParseAddr("2001:db8:1::10")
)

// pathsSpec is a dual-stack lab with an external client of three addresses
// and a second node: pod-a on the node, pod-b behind the second node.
func pathsSpec(prefix string) Spec {
	ip := netip.MustParseAddr
	return Spec{
		Prefix:     prefix,
		ClientIPv6: ip("fd00:10:244:ff::2"),
		Pods: []Pod{
			{Name: "pod-a", IP: ip("10.244.0.10"), IPv6: ip("fd00:10:244::10")},
			{Name: "pod-b", IP: ip("10.244.1.10"), IPv6: ip("fd00:10:244:1::10"), OnSecondNode: true},
			{Name: "pod-c", IPv6: ip("fd00:10:244:1::11"), OnSecondNode: true},
		},
		External:   &External{IPs: []netip.Addr{extInside, extOutside, extV6}},
		SecondNode: &SecondNode{},
	}
}

// servePeer answers every connection on port in the named namespace, both
// families, with the address the connection came from.
func servePeer(t *testing.T, nsName string, port string) {
	t.Helper()
	for _, network := range []string{"tcp4", "tcp6"} {
		var ln net.Listener
		err := netns.Do(nsName, func() error {
			var err error
			ln, err = net.Listen(network, ":"+port)
			return err
		})
		if err != nil {
			t.Fatalf("listen %s :%s in netns %s: %v", network, port, nsName, err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				peer := conn.RemoteAddr().(*net.TCPAddr)
				_, _ = io.WriteString(conn, netip.MustParseAddr(peer.IP.String()).Unmap().String())
				conn.Close()
			}
		}()
	}
}

// fetchFrom connects from src (zero: the kernel's choice) in the named
// namespace to addr and returns what the server sent.
func fetchFrom(nsName string, src netip.Addr, addr netip.AddrPort) (string, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	if src.IsValid() {
		d.LocalAddr = &net.TCPAddr{IP: src.AsSlice()}
	}
	var conn net.Conn
	err := netns.Do(nsName, func() error {
		var err error
		conn, err = d.Dial("tcp", addr.String())
		return err
	})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	body, err := io.ReadAll(conn)
	return string(body), err
}

func TestExternalClientAndSecondNodeReachEveryPodInBothFamilies(t *testing.T) {
	topo := buildForTest(t, pathsSpec(NewPrefix()))
	if topo.ExternalNetns == "" || topo.SecondNodeNetns == "" || !topo.Pods[1].OnSecondNode {
		t.Fatalf("topology lacks the new namespaces: %+v", topo)
	}
	for _, p := range topo.Pods {
		servePeer(t, p.Netns, "8080")
	}
	type path struct {
		from string
		src  netip.Addr
		to   netip.Addr
	}
	var paths []path
	for _, p := range topo.Pods {
		for _, to := range validAddrs(p.IP, p.IPv6) {
			paths = append(paths, path{topo.ClientNetns, topo.ClientIP, to})
			if to.Is6() {
				paths[len(paths)-1].src = topo.ClientIPv6
				paths = append(paths, path{topo.ExternalNetns, extV6, to})
				continue
			}
			paths = append(paths, path{topo.ExternalNetns, extInside, to}, path{topo.ExternalNetns, extOutside, to})
		}
	}
	for _, p := range paths {
		got, err := fetchFrom(p.from, p.src, netip.AddrPortFrom(p.to, 8080))
		if err != nil || got != p.src.String() {
			t.Errorf("from %s (%s) to %s: got %q, %v; want the pod to see %s", p.from, p.src, p.to, got, err, p.src)
		}
	}
}

func TestNodeAddressesAreLocalAndTheSecondNodeIsRouted(t *testing.T) {
	topo := buildForTest(t, pathsSpec(NewPrefix()))
	servePeer(t, topo.NodeNetns, "9000")
	servePeer(t, topo.SecondNodeNetns, "9001")
	for _, tc := range []struct {
		src, dst netip.Addr
		port     uint16
	}{
		{extInside, topo.NodeIP, 9000},
		{extV6, topo.NodeIPv6, 9000},
		{extInside, topo.SecondNodeIP, 9001},
		{extV6, topo.SecondNodeIPv6, 9001},
	} {
		got, err := fetchFrom(topo.ExternalNetns, tc.src, netip.AddrPortFrom(tc.dst, tc.port))
		if err != nil || got != tc.src.String() {
			t.Errorf("from %s to %s:%d: got %q, %v", tc.src, tc.dst, tc.port, got, err)
		}
	}
}

// TestNodePortToARemotePodIsMasqueradedToTheNodeIP is the path
// externalTrafficPolicy: Cluster takes: DNAT to a pod behind the second
// node, masqueraded, so the pod sees the node's address; without the
// masquerade rule (Local) it sees the client's.
func TestNodePortToARemotePodIsMasqueradedToTheNodeIP(t *testing.T) {
	labtest.RequireBinary(t, "iptables-nft")
	labtest.RequireBinary(t, "ip6tables-nft")
	topo := buildForTest(t, pathsSpec(NewPrefix()))
	servePeer(t, topo.Pods[1].Netns, "8080")
	rules := []struct {
		tool, node, pod, masq string
	}{
		{"iptables-nft", topo.NodeIP.String(), "10.244.1.10:8080", "-s 203.0.113.10"},
		{"ip6tables-nft", topo.NodeIPv6.String(), "[fd00:10:244:1::10]:8080", "-s 2001:db8:1::10"},
	}
	for _, r := range rules {
		nat := func(args string) {
			if _, err := netns.Output(topo.NodeNetns, nil, append([]string{r.tool, "-w", "-t", "nat"}, strings.Fields(args)...)...); err != nil {
				t.Fatal(err)
			}
		}
		nat("-A PREROUTING -d " + r.node + " -p tcp --dport 30080 -j DNAT --to-destination " + r.pod)
		nat("-A POSTROUTING " + r.masq + " -p tcp --dport 8080 -j MASQUERADE")
	}
	for _, tc := range []struct {
		src, node netip.Addr
		want      string
	}{
		{extInside, topo.NodeIP, topo.NodeIP.String()}, // masqueraded: the node's own address, never the link-local gateway
		{extOutside, topo.NodeIP, extOutside.String()}, // not masqueraded: the client's address is preserved
		{extV6, topo.NodeIPv6, topo.NodeIPv6.String()},
	} {
		got, err := fetchFrom(topo.ExternalNetns, tc.src, netip.AddrPortFrom(tc.node, 30080))
		if err != nil || got != tc.want {
			t.Errorf("from %s to NodePort %s:30080: pod saw %q, %v; want %s", tc.src, tc.node, got, err, tc.want)
		}
	}
}

func TestIPv6AddressesSkipDAD(t *testing.T) {
	topo := buildForTest(t, pathsSpec(NewPrefix()))
	for _, ns := range []string{topo.Pods[0].Netns, topo.ExternalNetns, topo.ClientNetns} {
		out, err := netns.Output(ns, nil, "ip", "-6", "-o", "addr", "show", "dev", "eth0", "scope", "global")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "tentative") || !strings.Contains(string(out), "nodad") {
			t.Errorf("netns %s: IPv6 addresses should be nodad and never tentative:\n%s", ns, out)
		}
	}
}

func TestPathsTopologyNamesAndTeardown(t *testing.T) {
	prefix := NewPrefix()
	labtest.RequireRoot(t)
	topo := buildForTest(t, pathsSpec(prefix))
	names := topo.Namespaces()
	for _, want := range []string{prefix + "-ext", prefix + "-node2"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("Namespaces() = %v, missing %s", names, want)
		}
	}
	if err := topo.Close(); err != nil {
		t.Fatal(err)
	}
	requireGone(t, prefix)
}
