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
			m, keep, walk := firstAndLastWalkProbe(t, tt.services)
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

// TestRecentProbe: the recent probe is the walk probe with a chain of
// tables --set rules, never jumped to, and rules --rcheck rules at the top
// of nat KUBE-SERVICES; traced, a first packet to every kept service looks
// the probe's list up rules times, walks rules more rules and reaches the
// same endpoint.
func TestRecentProbe(t *testing.T) {
	tests := []struct {
		name                    string
		services, tables, rules int
	}{
		{"one of each", 30, 1, 1},
		{"the default rules", 12, 40, iptables.RecentProbeRules},
		{"the most rules", 50, 7, iptables.MaxRecentProbeRules},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, keep, walk := firstAndLastWalkProbe(t, tt.services)
			probe, stats, err := iptables.RenderRecentProbe(walk, tt.tables, tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			added := strings.Count(string(probe), "\n-A ") - strings.Count(string(walk), "\n-A ")
			if added != tt.tables+tt.rules || stats.Rules != strings.Count(string(probe), "\n-A ") {
				t.Fatalf("%d rules added (stats %d), want %d", added, stats.Rules, tt.tables+tt.rules)
			}
			if got := strings.Count(string(probe), " --set\n"); got != tt.tables {
				t.Errorf("%d --set rules, want %d", got, tt.tables)
			}
			walkDump, probeDump := loadPayload(t, walk, m), loadPayload(t, probe, m)
			for i, ip := range keep {
				p := trace.Packet{Src: netip.MustParseAddr("10.244.0.9"), Dst: ip, Proto: "tcp", DPort: 80, From: "pod"}
				want, got := traceOf(t, walkDump, p), traceOf(t, probeDump, p)
				if got.RulesEvaluated != want.RulesEvaluated+tt.rules || len(got.RecentChecked) != tt.rules || len(got.RecentSet) != 0 {
					t.Errorf("kept service %d: %d rules, lists checked %v, set %v through the probe; %d rules through the walk probe, want %d more and %d checks of %s",
						i, got.RulesEvaluated, got.RecentChecked, got.RecentSet, want.RulesEvaluated, tt.rules, tt.rules, iptables.RecentProbeList)
				}
				for _, n := range got.RecentChecked {
					if n != iptables.RecentProbeList {
						t.Errorf("kept service %d: checked %s, want %s", i, n, iptables.RecentProbeList)
					}
				}
				if got.DNAT != want.DNAT || got.Verdict != want.Verdict {
					t.Errorf("kept service %d: %v %v through the probe, %v %v through the walk probe", i, got.Verdict, got.DNAT, want.Verdict, want.DNAT)
				}
			}
		})
	}
}

// TestRecentProbeRefusesBadCounts: no lists, no rules or too many rules
// are refused, as is a payload without nat rules.
func TestRecentProbeRefusesBadCounts(t *testing.T) {
	natless := []byte("*filter\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -j RETURN\nCOMMIT\n")
	tests := []struct {
		name          string
		payload       []byte
		tables, rules int
		want          string
	}{
		{"no lists", nil, 0, 1, "at least 1"},
		{"no rules", nil, 5, 0, "at least 1"},
		{"too many rules", nil, 5, iptables.MaxRecentProbeRules + 1, "at most"},
		{"no nat rule", natless, 5, 1, "no nat rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := iptables.RenderRecentProbe(tt.payload, tt.tables, tt.rules); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// firstAndLastWalkProbe is a walk probe of services one-endpoint services
// keeping the first and the last, with its model and kept ClusterIPs.
func firstAndLastWalkProbe(t *testing.T, services int) (*model.Model, []netip.Addr, []byte) {
	t.Helper()
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: services, EndpointsPerService: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
	keep := []netip.Addr{gen.At(0).ClusterIP, gen.At(services - 1).ClusterIP}
	walk, _, err := iptables.RenderWalkProbe(m, iptables.DefaultOptions(), keep)
	if err != nil {
		t.Fatal(err)
	}
	return m, keep, walk
}
