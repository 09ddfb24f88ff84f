package iptrace

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace"
)

// FuzzTraceIPTables traces packets through arbitrary dumps the parser
// accepts: no panics, and the probabilities of the endpoints reached never
// exceed 1. The seed corpus is in testdata/fuzz/FuzzTraceIPTables.
func FuzzTraceIPTables(f *testing.F) {
	f.Add("*nat\n:S - [0:0]\n-A PREROUTING -j S\n-A S -m statistic --mode random --probability 0.5 -j DNAT --to-destination 10.0.0.1:80\nCOMMIT\n", uint8(1), uint16(80))
	f.Fuzz(func(t *testing.T, dump string, last uint8, port uint16) {
		d, err := iptables.ParseString(dump)
		if err != nil {
			return
		}
		tr, err := NewIPTablesTracer(d, Options{LocalAddrs: []netip.Addr{netip.MustParseAddr("192.168.1.10")}, MaxBranches: 64})
		if err != nil {
			return
		}
		for _, p := range []trace.Packet{
			{Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.AddrFrom4([4]byte{172, 30, 0, last}), Proto: "tcp", DPort: port},
			{Src: netip.MustParseAddr("192.168.1.10"), Dst: netip.AddrFrom4([4]byte{10, 96, 0, last}), Proto: "udp", DPort: port, From: "node"},
		} {
			out, err := tr.Trace(p)
			if err != nil {
				continue
			}
			total := 0.0
			for _, e := range out.Endpoints {
				total += e.Effective
			}
			if total > 1+1e-9 || out.Branches < 1 || out.Verdict == "" {
				t.Fatalf("bad trace: %s", out)
			}
		}
	})
}
