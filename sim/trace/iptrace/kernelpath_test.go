package iptrace

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/trace"
)

// TestKernelPath traces the examples on a node dump with raw,
// mangle, filter and nat tables (testdata/nodes/nodelocaldns-calico.rules).
func TestKernelPath(t *testing.T) {
	local := []netip.Addr{netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("169.254.20.10"), netip.MustParseAddr("10.96.0.10")}
	tr := mustTracer(t, loadDump(t, "nodes/nodelocaldns-calico.rules"), Options{LocalAddrs: local})
	udp := func(src, dst string, port uint16, from string) trace.Packet {
		return trace.Packet{Src: netip.MustParseAddr(src), Dst: netip.MustParseAddr(dst), Proto: "udp", DPort: port, From: from}
	}
	node := tcp("192.168.0.2", "192.168.0.2", 9999)
	node.From = "node"
	tests := []struct {
		name    string
		pkt     trace.Packet
		verdict Verdict
		dnat    string
		by      string // the last step of the path: "table chain #n"
	}{
		{"host process to the DNS service IP: notrack, no DNAT, INPUT accepts", udp("192.168.0.2", "10.96.0.10", 53, "node"), Accept, "", "filter INPUT #2"},
		{"pod to the DNS service IP: notrack in raw PREROUTING, local", udp("10.244.1.5", "10.96.0.10", 53, "pod"), Accept, "", "filter INPUT #2"},
		{"marked in mangle, dropped by KUBE-FIREWALL", tcp("198.51.100.7", "192.168.0.2", 10250), Drop, "", "filter KUBE-FIREWALL #1"},
		{"host process to a local port INPUT drops", node, Drop, "", "filter NODE-INPUT #1"},
		{"another host to the DNS service IP: notrack too", udp("192.168.5.5", "10.96.0.10", 53, "pod"), Accept, "", "filter INPUT #2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustTrace(t, tr, tc.pkt)
			if got.Verdict != tc.verdict || (tc.dnat == "") != !got.DNAT.IsValid() {
				t.Fatalf("got %s", got)
			}
			if tc.by != "" {
				last := got.Path[len(got.Path)-1]
				if by := last.Table() + " " + last.Chain() + " #" + strconv.Itoa(last.RuleIndex()); by != tc.by || !last.Matched {
					t.Errorf("decided by %s, want %s:\n%s", by, tc.by, got)
				}
			}
		})
	}
}

// TestMissingFilterTable: a dump made with iptables-save -t nat gives an
// unknown verdict that names the missing table; the DNAT decisions stand.
func TestMissingFilterTable(t *testing.T) {
	text := string(readFile(t, "testdata/nodes/nodelocaldns-calico.rules"))
	nat := text[strings.Index(text, "*nat"):]
	tr := mustTracer(t, parseDump(t, nat), Options{})
	got := mustTrace(t, tr, trace.Packet{Src: netip.MustParseAddr("10.244.1.5"), Dst: netip.MustParseAddr("10.96.0.10"), Proto: "udp", DPort: 53})
	if got.Verdict != Unknown || !hasFlag(got, "the dump has no filter table") || len(got.Endpoints) != 2 {
		t.Errorf("got %s", got)
	}
}

// TestIPv6 traces ip6tables-save output (testdata/ip6tables.rules).
func TestIPv6(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "ip6tables.rules"), Options{LocalAddrs: []netip.Addr{netip.MustParseAddr("2001:db8::1")}})
	p := tcp("2001:db8::5", "fd00:10:96::10", 80)
	p.InIface, p.OutIface = "eth0", "eth0"
	got := mustTrace(t, tr, p)
	if got.Verdict != Accept || !got.Masquerade || len(got.Endpoints) != 2 || got.Endpoints[0].Effective != 0.5 || got.Service != "ns1/svc1:p80" {
		t.Errorf("service: %s", got)
	}
	p.Src = netip.MustParseAddr("fd00:10:244::7")
	if got := mustTrace(t, tr, p); got.Masquerade {
		t.Errorf("from a pod: %s", got)
	}
	p.Dst = netip.MustParseAddr("fd00:10:96::20")
	if got := mustTrace(t, tr, p); got.Verdict != Reject {
		t.Errorf("no endpoints: %s", got)
	}
	p = tcp("2001:db8:bad::9", "2001:db8::1", 22)
	p.InIface = "eth0"
	if got := mustTrace(t, tr, p); got.Verdict != Drop {
		t.Errorf("blocked source: %s", got)
	}
}
