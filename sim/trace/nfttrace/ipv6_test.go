package nfttrace

import (
	"math"
	"net/netip"
	"os"
	"testing"
)

// TestIPv6: an ip6 table's service map and numgen, and an inet table whose
// ip rules do not touch IPv6 packets (testdata/ipv6.nft).
func TestIPv6(t *testing.T) {
	src, err := os.ReadFile("testdata/ipv6.nft")
	if err != nil {
		t.Fatal(err)
	}
	p := compileText(t, string(src))
	r, err := p.Trace(Packet{Src: netip.MustParseAddr("2001:db8::5"), Dst: netip.MustParseAddr("fd00:10:96::10"), Proto: "tcp", DPort: 80, InIface: "eth0", OutIface: "eth0"})
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
	r, err = p.Trace(Packet{Src: netip.MustParseAddr("2001:db8::5"), Dst: netip.MustParseAddr("2001:db8::99"), Proto: "tcp", DPort: 80, InIface: "eth0", OutIface: "eth0"})
	if err != nil || r.Verdict != "accept" {
		t.Errorf("forwarded IPv6: %+v %v", r, err)
	}
	// The ip6 table does not see IPv4 packets; the inet forward chain does.
	r, err = p.Trace(Packet{Src: netip.MustParseAddr("192.0.2.5"), Dst: netip.MustParseAddr("198.51.100.9"), Proto: "tcp", DPort: 80, InIface: "eth0", OutIface: "eth0"})
	if err != nil || r.Verdict != "drop" {
		t.Errorf("forwarded IPv4: %+v %v", r, err)
	}
	r, err = p.Trace(Packet{Src: netip.MustParseAddr("2001:db8:bad::1"), Dst: nodeIP6, Proto: "tcp", DPort: 22, InIface: "eth0"})
	if err != nil || r.Verdict != "drop" {
		t.Errorf("blocked IPv6 source to the node: %+v %v", r, err)
	}
}

var nodeIP6 = netip.MustParseAddr("::1")
