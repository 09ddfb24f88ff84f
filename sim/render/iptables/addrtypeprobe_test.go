package iptables_test

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/trace"
)

// TestAddrTypeProbe: the addrtype probe is the walk probe with rules more
// rules, all addrtype REJECTs in filter KUBE-EXTERNAL-SERVICES; traced, a
// first packet to every kept service walks them all, each an addrtype
// match the kernel evaluates, and reaches the same endpoint.
func TestAddrTypeProbe(t *testing.T) {
	tests := []struct {
		name            string
		services, rules int
	}{
		{"one rule", 30, 1},
		{"more rules than services", 12, 40},
		{"as many as services", 50, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen, err := model.NewGenerator(model.GeneratorConfig{Services: tt.services, EndpointsPerService: 1, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
			keep := []netip.Addr{gen.At(0).ClusterIP, gen.At(tt.services - 1).ClusterIP}
			walk, _, err := iptables.RenderWalkProbe(m, iptables.DefaultOptions(), keep)
			if err != nil {
				t.Fatal(err)
			}
			probe, stats, err := iptables.RenderAddrTypeProbe(m, iptables.DefaultOptions(), walk, tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			added := strings.Count(string(probe), "\n-A ") - strings.Count(string(walk), "\n-A ")
			if added != tt.rules || stats.Rules != strings.Count(string(probe), "\n-A ") {
				t.Fatalf("%d rules added (stats %d), want %d", added, stats.Rules, tt.rules)
			}
			if got := strings.Count(string(probe), "-A KUBE-EXTERNAL-SERVICES -m comment --comment \"addrtype-probe"); got != tt.rules {
				t.Errorf("%d probe rules in KUBE-EXTERNAL-SERVICES, want %d", got, tt.rules)
			}
			walkDump, probeDump := loadPayload(t, walk, m), loadPayload(t, probe, m)
			for i, ip := range keep {
				p := trace.Packet{Src: netip.MustParseAddr("10.244.0.9"), Dst: ip, Proto: "tcp", DPort: 80, From: "pod"}
				want, got := traceOf(t, walkDump, p), traceOf(t, probeDump, p)
				if got.RulesEvaluated != want.RulesEvaluated+tt.rules || got.AddrTypesEvaluated != want.AddrTypesEvaluated+tt.rules {
					t.Errorf("kept service %d: %d rules, %d addrtype matches through the probe; %d and %d through the walk probe, want %d more of each",
						i, got.RulesEvaluated, got.AddrTypesEvaluated, want.RulesEvaluated, want.AddrTypesEvaluated, tt.rules)
				}
				if got.DNAT != want.DNAT || got.Verdict != want.Verdict {
					t.Errorf("kept service %d: %v %v through the probe, %v %v through the walk probe", i, got.Verdict, got.DNAT, want.Verdict, want.DNAT)
				}
			}
		})
	}
}

// TestAddrTypeProbeRefusesAPayloadWithoutTheChain: a payload without the
// filter table's KUBE-EXTERNAL-SERVICES cannot take the rules.
func TestAddrTypeProbeRefusesAPayloadWithoutTheChain(t *testing.T) {
	m := &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice(nil)}
	_, _, err := iptables.RenderAddrTypeProbe(m, iptables.DefaultOptions(), bytes.TrimSpace([]byte("*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n")), 3)
	if err == nil || !strings.Contains(err.Error(), "KUBE-EXTERNAL-SERVICES") {
		t.Fatalf("err = %v, want one naming KUBE-EXTERNAL-SERVICES", err)
	}
}
