package verifytrace

import (
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/nftables"
)

// TestMonitorParse: the packet's id is the IPv4 id or the IPv6 flow label
// of nft monitor trace's "packet:" line (lines as nft 1.0.6 prints them);
// a packet without one (not ours) records no events.
func TestMonitorParse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		id    uint16
		want  []traceEvent
	}{
		{"ipv4", []string{
			`trace id 8a4c7f01 ip kube-proxy nat-prerouting packet: iif "eth0" ether saddr 02:00:00:00:00:01 ether daddr 02:00:00:00:00:02 ip saddr 192.168.0.1 ip daddr 10.96.0.10 ip dscp cs0 ip ecn not-ect ip ttl 64 ip id 10005 ip protocol udp ip length 28 udp sport 10005 udp dport 53 udp length 8 `,
			`trace id 8a4c7f01 ip kube-proxy nat-prerouting rule jump services # handle 12 (verdict jump services)`,
		}, 10005, []traceEvent{{table: "ip kube-proxy", chain: "nat-prerouting", handle: 12, verdict: "jump"}}},
		{"ipv6", []string{
			`trace id f25b32e2 ip6 kube-proxy filter-output packet: oif "lo" ip6 saddr ::1 ip6 daddr ::1 ip6 dscp cs0 ip6 ecn not-ect ip6 hoplimit 64 ip6 flowlabel 10005 ip6 length 8 udp sport 10005 udp dport 9 udp length 8 `,
			`trace id f25b32e2 ip6 kube-proxy filter-output policy accept `,
		}, 10005, []traceEvent{{table: "ip6 kube-proxy", chain: "filter-output", verdict: "accept"}}},
		{"the trace table's own rules", []string{
			`trace id f25b32e2 ip6 svl-trace out packet: oif "lo" ip6 saddr ::1 ip6 daddr ::1 ip6 dscp cs0 ip6 ecn not-ect ip6 hoplimit 64 ip6 flowlabel 10005 ip6 length 8 udp sport 10005 udp dport 9 udp length 8 `,
			`trace id f25b32e2 ip6 svl-trace out rule meta nftrace set 1 # handle 2 (verdict continue)`,
		}, 10005, nil},
		{"a packet without an id reuses a trace id", []string{
			`trace id f25b32e2 ip6 kube-proxy filter-output packet: oif "lo" ip6 saddr ::1 ip6 daddr ::1 ip6 dscp cs0 ip6 ecn not-ect ip6 hoplimit 64 ip6 flowlabel 10005 ip6 length 8 udp sport 10005 udp dport 9 udp length 8 `,
			`trace id f25b32e2 ip6 kube-proxy filter-output packet: oif "eth0" ip6 saddr fd00::1 ip6 daddr ff02::16 ip6 dscp cs0 ip6 ecn not-ect ip6 hoplimit 1 ip6 length 36 icmpv6 type mld2-listener-report `,
			`trace id f25b32e2 ip6 kube-proxy filter-output policy accept `,
		}, 10005, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &monitor{byID: map[string]uint16{}, events: map[uint16][]traceEvent{}}
			if got := m.parse(tc.lines[0]); got != tc.id {
				t.Fatalf("packet line: id %d, want %d", got, tc.id)
			}
			for _, l := range tc.lines[1:] {
				m.parse(l)
			}
			if !slices.Equal(m.events[tc.id], tc.want) {
				t.Errorf("events %+v, want %+v", m.events[tc.id], tc.want)
			}
		})
	}
}

// TestNFTPoolFamily: an IPv6 ruleset's packets are IPv6, drawn from its
// service, endpoint and node addresses and its ports (NodePorts of
// service-nodeports and no-endpoint-nodeports included); an IPv4 one's
// stay IPv4.
func TestNFTPoolFamily(t *testing.T) {
	for _, tc := range []struct {
		file      string
		ipv6      bool
		wantAddrs []string
		wantPorts []uint16
	}{
		{"testdata/kube-proxy-nftables-ipv6.nft", true, []string{"fd00:10:96::10", "fd00:10:96::a", "fd00:10:96::30", "fd00:10:244:1::a", "fd00:10:244:2::b", "fd00:10:244:1::53", "fd00:1::2"}, []uint16{80, 53, 8080, 30080, 30081}},
		{"testdata/kube-proxy-nftables.nft", false, []string{"10.102.10.127", "10.142.98.193", "192.168.1.2"}, []uint16{80, 8080}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			meta, err := ReadMeta(text)
			if err != nil {
				t.Fatal(err)
			}
			if meta.IPv6 != tc.ipv6 {
				t.Fatalf("family=ip6 %v, want %v", meta.IPv6, tc.ipv6)
			}
			p := nftPool(string(text), meta)
			for _, a := range append(append([]netip.Addr{p.node}, p.srcs...), p.dsts...) {
				if a.Is6() != tc.ipv6 || a.IsLoopback() {
					t.Errorf("address %v in the pool", a)
				}
			}
			for _, s := range tc.wantAddrs {
				if !slices.Contains(p.dsts, netip.MustParseAddr(s)) {
					t.Errorf("destinations lack %s: %v", s, p.dsts)
				}
			}
			for _, port := range tc.wantPorts {
				if !slices.Contains(p.ports, port) {
					t.Errorf("ports lack %d: %v", port, p.ports)
				}
			}
		})
	}
}

// TestCheckFamily: a ruleset whose tables cannot see the header family's
// packets is refused, naming the header to fix.
func TestCheckFamily(t *testing.T) {
	for _, tc := range []struct {
		text string
		ipv6 bool
		want string // "" for no error
	}{
		{"table ip6 t {\n}\n", true, ""},
		{"table inet t {\n}\n", true, ""},
		{"table ip t {\n}\n", false, ""},
		{"table ip6 t {\n}\n", false, "add family=ip6"},
		{"table ip t {\n}\n", true, "drop family=ip6"},
	} {
		rs, err := nftables.ParseString(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		err = checkFamily(rs, Meta{IPv6: tc.ipv6})
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q ipv6=%v: %v, want %q", tc.text, tc.ipv6, err, tc.want)
		}
	}
}
