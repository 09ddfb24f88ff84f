package nfttrace

import (
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/trace"
)

// TestHostFirewall traces a host firewall with the statements such rules
// use: ct state vmap, iifname, meta mark, named sets and verdict maps,
// fib, limit, counter and log (testdata/host-firewall.nft).
func TestHostFirewall(t *testing.T) {
	src, err := os.ReadFile("testdata/host-firewall.nft")
	if err != nil {
		t.Fatal(err)
	}
	p := compileText(t, string(src))
	pkt := func(src string, port uint16, proto string, mods ...func(*trace.Packet)) trace.Packet {
		x := trace.Packet{Src: addr(src), Dst: nodeIP, Proto: proto, DPort: port, From: "pod", InIface: "eth0"}
		for _, m := range mods {
			m(&x)
		}
		return x
	}
	established := func(x *trace.Packet) { x.State = "established" }
	noIface := func(x *trace.Packet) { x.InIface = "" }
	marked := func(x *trace.Packet) { x.Mark = 0x8000 }
	tests := []struct {
		name    string
		pkt     trace.Packet
		verdict string
		why     string // in Undecided when unknown
	}{
		{"admin ssh", pkt("198.51.100.7", 22, "tcp"), "accept", ""},
		{"ssh from elsewhere falls to the final drop", pkt("10.1.1.1", 22, "tcp"), "drop", ""},
		{"established via ct state vmap", pkt("10.1.1.1", 22, "tcp", established), "accept", ""},
		{"port policy map accepts 443", pkt("10.1.1.1", 443, "tcp"), "accept", ""},
		{"port policy map drops 9999", pkt("10.1.1.1", 9999, "tcp"), "drop", ""},
		{"marked packets dropped", pkt("198.51.100.7", 22, "tcp", marked), "drop", ""},
		{"limit decides DNS", pkt("10.1.1.1", 53, "udp"), "unknown", "limit rate 10/second"},
		{"iifname lo undecided without the interface", pkt("10.1.1.1", 443, "tcp", noIface), "unknown", `iifname [lo]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := p.Trace(tc.pkt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.verdict || (tc.why != "" && (len(r.Undecided) != 1 || !strings.Contains(r.Undecided[0], tc.why))) {
				t.Errorf("verdict %s undecided %v, want %s (%s)", r.Verdict, r.Undecided, tc.verdict, tc.why)
			}
		})
	}
	fwd, err := p.Trace(trace.Packet{Src: addr("172.17.0.2"), Dst: netip.MustParseAddr("1.1.1.1"), Proto: "tcp", DPort: 443, InIface: "docker0", OutIface: "eth0"})
	if err != nil || fwd.Verdict != "accept" {
		t.Errorf("forward from docker0: %+v %v", fwd, err)
	}
}
