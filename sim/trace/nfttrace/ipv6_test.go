package nfttrace

import (
	"math"
	"net/netip"
	"os"
	"testing"

	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/trace"
)

// TestIPv6: an ip6 table's service map and numgen, and an inet table whose
// ip rules do not touch IPv6 packets (testdata/ipv6.nft).
func TestIPv6(t *testing.T) {
	src, err := os.ReadFile("testdata/ipv6.nft")
	if err != nil {
		t.Fatal(err)
	}
	p := compileText(t, string(src))
	r, err := p.Trace(trace.Packet{Src: netip.MustParseAddr("2001:db8::5"), Dst: netip.MustParseAddr("fd00:10:96::10"), Proto: "tcp", DPort: 80, InIface: "eth0", OutIface: "eth0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Endpoints) != 3 || r.Verdict != "accept" {
		t.Fatalf("got %+v", r)
	}
	for _, e := range r.Endpoints {
		if math.Abs(e.Probability-1.0/3) > 1e-12 || e.Addr.Port() != 8080 || !e.Addr.Addr().Is6() {
			t.Errorf("endpoint %+v", e)
		}
	}
	// ip daddr != 10.0.0.0/8 drop in forward never matches an IPv6 packet.
	r, err = p.Trace(trace.Packet{Src: netip.MustParseAddr("2001:db8::5"), Dst: netip.MustParseAddr("2001:db8::99"), Proto: "tcp", DPort: 80, InIface: "eth0", OutIface: "eth0"})
	if err != nil || r.Verdict != "accept" {
		t.Errorf("forwarded IPv6: %+v %v", r, err)
	}
	// The ip6 table does not see IPv4 packets; the inet forward chain does.
	r, err = p.Trace(trace.Packet{Src: netip.MustParseAddr("192.0.2.5"), Dst: netip.MustParseAddr("198.51.100.9"), Proto: "tcp", DPort: 80, InIface: "eth0", OutIface: "eth0"})
	if err != nil || r.Verdict != "drop" {
		t.Errorf("forwarded IPv4: %+v %v", r, err)
	}
	r, err = p.Trace(trace.Packet{Src: netip.MustParseAddr("2001:db8:bad::1"), Dst: nodeIP6, Proto: "tcp", DPort: 22, InIface: "eth0"})
	if err != nil || r.Verdict != "drop" {
		t.Errorf("blocked IPv6 source to the node: %+v %v", r, err)
	}
}

var nodeIP6 = netip.MustParseAddr("::1")

// TestIPv6V137: kube-proxy v1.37's IPv6 layout as nft lists it
// (testdata/ipv6-137.nft): "dnat ip6 to numgen … map" of IPv6 endpoints,
// a one-endpoint DNAT, a NodePort, and a service without endpoints.
func TestIPv6V137(t *testing.T) {
	src, err := os.ReadFile("testdata/ipv6-137.nft")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := nftables.ParseString(string(src))
	if err != nil {
		t.Fatal(err)
	}
	node := netip.MustParseAddr("fd00:1::2")
	p, err := Compile(rs, Options{LocalAddrs: []netip.Addr{node}})
	if err != nil {
		t.Fatal(err)
	}
	a := netip.MustParseAddr
	web := "[fd00:10:244:1::a]:8080=1/2, [fd00:10:244:2::b]:8080=1/2"
	for _, tc := range []struct {
		name      string
		pkt       trace.Packet
		verdict   string
		endpoints string
		masq      bool
	}{
		{"cluster IP from a pod", trace.Packet{Src: a("fd00:10:244:3::5"), Dst: a("fd00:10:96::10"), Proto: "tcp", DPort: 80}, "accept", web, false},
		{"cluster IP from outside the cluster", trace.Packet{Src: a("2001:db8::9"), Dst: a("fd00:10:96::10"), Proto: "tcp", DPort: 80}, "accept", web, true},
		{"NodePort", trace.Packet{Src: a("2001:db8::9"), Dst: node, Proto: "tcp", DPort: 30080}, "accept", web, true},
		{"one endpoint", trace.Packet{Src: a("fd00:10:244:3::5"), Dst: a("fd00:10:96::a"), Proto: "udp", DPort: 53}, "accept", "[fd00:10:244:1::53]:53=1", false},
		{"no endpoints", trace.Packet{Src: a("fd00:10:244:3::5"), Dst: a("fd00:10:96::30"), Proto: "tcp", DPort: 80}, "reject", "", false},
		{"NodePort without endpoints", trace.Packet{Src: a("2001:db8::9"), Dst: node, Proto: "tcp", DPort: 30081}, "reject", "", false},
		{"wrong port of a cluster IP", trace.Packet{Src: a("fd00:10:244:3::5"), Dst: a("fd00:10:96::10"), Proto: "tcp", DPort: 81}, "reject", "", false},
		{"unallocated cluster IP", trace.Packet{Src: a("fd00:10:244:3::5"), Dst: a("fd00:10:96::99"), Proto: "tcp", DPort: 80}, "drop", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.pkt.InIface, tc.pkt.OutIface = "eth0", "eth0"
			r, err := p.Trace(tc.pkt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.verdict || endpointsString(r.Endpoints) != tc.endpoints || r.Masquerade != tc.masq {
				t.Errorf("got %s, endpoints %q, masquerade %v; want %s, %q, %v", r.Verdict, endpointsString(r.Endpoints), r.Masquerade, tc.verdict, tc.endpoints, tc.masq)
			}
		})
	}
}
