package iptrace

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/trace"
)

// deepDump nests depth user chains under nat PREROUTING, the last one
// DNATing 10.96.0.1:80; a statistic rule half-way forks the walk there.
func deepDump(depth int) string {
	var b strings.Builder
	b.WriteString("*nat\n")
	for i := range depth {
		fmt.Fprintf(&b, ":C%d - [0:0]\n", i)
	}
	b.WriteString("-A PREROUTING -j C0\n")
	for i := range depth - 1 {
		if i == depth/2 {
			fmt.Fprintf(&b, "-A C%d -m statistic --mode random --probability 0.5 -j RETURN\n", i)
		}
		fmt.Fprintf(&b, "-A C%d -j C%d\n", i, i+1)
	}
	fmt.Fprintf(&b, "-A C%d -p tcp -d 10.96.0.1 --dport 80 -j DNAT --to-destination 10.244.1.2:8080\nCOMMIT\n*filter\nCOMMIT\n", depth-1)
	return b.String()
}

// TestIssue26Point14DeepLegacyJumps: the kernel's legacy tables have no
// jump depth limit (their stack is as deep as the table has chains), so
// the tracer follows any depth a loop-free dump has, forks included.
func TestIssue26Point14DeepLegacyJumps(t *testing.T) {
	for _, depth := range []int{15, 16, 17, 40, 300} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			tr := mustTracer(t, parseDump(t, deepDump(depth)), Options{})
			for range 2 { // the second trace reuses the pooled scratch
				res, err := tr.Trace(trace.Packet{Src: netip.MustParseAddr("10.244.255.1"), Dst: netip.MustParseAddr("10.96.0.1"), Proto: "tcp", DPort: 80})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Endpoints) != 1 || res.Endpoints[0].Endpoint.String() != "10.244.1.2:8080" || res.Endpoints[0].Probability != 0.5 {
					t.Fatalf("endpoints %+v, want 10.244.1.2:8080 with probability 0.5", res.Endpoints)
				}
			}
		})
	}
}

// TestIssue26Point10JumpLoopNamesTheLine: a jump loop is refused with the
// line of the rule that closes it.
func TestIssue26Point10JumpLoopNamesTheLine(t *testing.T) {
	d := parseDump(t, "*nat\n:A - [0:0]\n:B - [0:0]\n-A PREROUTING -j A\n-A A -j B\n-A B -j A\nCOMMIT\n")
	_, err := NewIPTablesTracer(d, Options{})
	if err == nil || !strings.Contains(err.Error(), "line 6") || !strings.Contains(err.Error(), "A -> B -> A") {
		t.Errorf("error %v, want the loop and line 6", err)
	}
}
