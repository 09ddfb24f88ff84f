package iptrace

import (
	"fmt"
	"math"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/trace"
)

// addrTypeDump is a filter table whose FORWARD walks KUBE-EXTERNAL-SERVICES:
// tcpRejects and udpRejects addrtype REJECTs (every other one UDP while
// they last) of NodePorts (kube-proxy's for
// Services without endpoints), an addrtype rule with a -d no packet here
// has, and a plain rule.
func addrTypeDump(tcpRejects, udpRejects int) string {
	var b strings.Builder
	b.WriteString("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:KUBE-EXTERNAL-SERVICES - [0:0]\n")
	b.WriteString("-A FORWARD -m conntrack --ctstate NEW -j KUBE-EXTERNAL-SERVICES\n")
	for i := range tcpRejects + udpRejects {
		proto := "tcp"
		if i%2 == 1 && i/2 < udpRejects {
			proto = "udp"
		}
		fmt.Fprintf(&b, "-A KUBE-EXTERNAL-SERVICES -m comment --comment \"ns/s%d has no endpoints\" -m addrtype --dst-type LOCAL -m %s -p %s --dport %d -j REJECT\n", i, proto, proto, 30000+i)
	}
	b.WriteString("-A KUBE-EXTERNAL-SERVICES -d 192.0.2.1/32 -m addrtype --dst-type LOCAL -j REJECT\n")
	b.WriteString("-A KUBE-EXTERNAL-SERVICES -s 10.0.0.0/8 -j RETURN\nCOMMIT\n")
	return b.String()
}

// TestAddrTypesEvaluated: a first packet counts the addrtype rules whose
// header (-p, -d) it passes, in chains the tracer indexes (and skips
// through) as in chains it walks rule by rule; another protocol's and
// another address's are walked but not counted.
func TestAddrTypesEvaluated(t *testing.T) {
	tests := []struct {
		name             string
		tcp, udp         int
		proto            string
		wantRules, wantN int
	}{
		{"tcp packet, tcp rejects only", 20, 0, "tcp", 22, 20},
		{"tcp packet, mixed rejects", 10, 10, "tcp", 22, 10},
		{"udp packet, mixed rejects", 10, 10, "udp", 22, 10},
		{"udp packet, tcp rejects only", 9, 0, "udp", 11, 0},
		{"no rejects", 0, 0, "tcp", 2, 0},
	}
	for _, tt := range tests {
		d := parseDump(t, addrTypeDump(tt.tcp, tt.udp))
		for _, indexMin := range []int{indexMinRules, math.MaxInt} {
			t.Run(fmt.Sprintf("%s, index from %d rules", tt.name, indexMin), func(t *testing.T) {
				tr, err := newIPTablesTracer(d, Options{}, indexMin)
				if err != nil {
					t.Fatal(err)
				}
				p := trace.Packet{Src: netip.MustParseAddr("10.244.0.9"), Dst: netip.MustParseAddr("10.244.1.7"), Proto: tt.proto, DPort: 8080, From: "pod"}
				got := mustTrace(t, tr, p)
				// The walk: FORWARD's jump, every KUBE-EXTERNAL-SERVICES rule.
				if got.RulesEvaluated != tt.wantRules+1 || got.AddrTypesEvaluated != tt.wantN {
					t.Errorf("%d rules, %d addrtype matches evaluated; want %d and %d", got.RulesEvaluated, got.AddrTypesEvaluated, tt.wantRules+1, tt.wantN)
				}
			})
		}
	}
}
