package iptables_test

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/route"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/iptrace"
)

// TestWalkProbeWalksTheSameRules: through the walk probe's payload, a first
// packet to a kept service walks as many rules as through the full ruleset
// and reaches the same endpoint; one to another service (all have as many
// endpoints) is DNATed to the shared service's endpoint after as many rules; the probe keeps every
// KUBE-SERVICES rule and far fewer chains, and sim's iptables-restore
// (which refuses a jump to a chain it does not have) loads it.
func TestWalkProbeWalksTheSameRules(t *testing.T) {
	tests := []struct {
		name      string
		services  int
		endpoints int
		keep      []int // indexes of the services to keep
	}{
		{"one kept at the end", 40, 1, []int{39}},
		{"first and last kept, two endpoints", 60, 2, []int{0, 59}},
		{"middle kept", 25, 3, []int{12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen, err := model.NewGenerator(model.GeneratorConfig{Services: tt.services, EndpointsPerService: tt.endpoints, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
			var full bytes.Buffer
			if _, err := iptables.Render(&full, m, iptables.DefaultOptions()); err != nil {
				t.Fatal(err)
			}
			var keep []netip.Addr
			for _, i := range tt.keep {
				keep = append(keep, gen.At(i).ClusterIP)
			}
			probe, rules, err := iptables.WalkProbe(full.Bytes(), keep)
			if err != nil {
				t.Fatal(err)
			}
			checkProbeShape(t, full.String(), string(probe), rules, len(tt.keep))
			fullDump, probeDump := loadPayload(t, full.Bytes(), m), loadPayload(t, probe, m)
			for i := 0; i < tt.services; i++ {
				svc := gen.At(i)
				p := trace.Packet{Src: netip.MustParseAddr("10.244.0.9"), Dst: svc.ClusterIP, Proto: "tcp", DPort: uint16(svc.Ports[0].Port), From: "pod"}
				want, got := traceOf(t, fullDump, p), traceOf(t, probeDump, p)
				if got.RulesEvaluated != want.RulesEvaluated {
					t.Errorf("service %d: %d rules walked through the probe, %d through the full ruleset", i, got.RulesEvaluated, want.RulesEvaluated)
				}
				if got.Service != want.Service {
					t.Errorf("service %d: the probe matched %q, the full ruleset %q", i, got.Service, want.Service)
				}
				if kept := contains(tt.keep, i); kept && got.DNAT.Addr() != want.DNAT.Addr() && len(want.Endpoints) == 1 {
					t.Errorf("kept service %d: DNAT %v through the probe, %v through the full ruleset", i, got.DNAT, want.DNAT)
				}
				if !got.DNAT.IsValid() {
					t.Errorf("service %d: not DNATed through the probe (%v)", i, got.Verdict)
				}
			}
		})
	}
}

func checkProbeShape(t *testing.T, full, probe string, rules, kept int) {
	t.Helper()
	count := func(text, prefix string) int {
		n := 0
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, prefix) {
				n++
			}
		}
		return n
	}
	if a, b := count(full, "-A KUBE-SERVICES "), count(probe, "-A KUBE-SERVICES "); a != b {
		t.Errorf("KUBE-SERVICES rules: %d in the probe, %d in the full ruleset", b, a)
	}
	if got, want := count(probe, ":KUBE-SVC-"), kept+1; got != want {
		t.Errorf("%d service chains in the probe, want the %d kept and the shared one", got, kept)
	}
	if rules != count(probe, "-A ") {
		t.Errorf("WalkProbe says %d rules, the payload has %d", rules, count(probe, "-A "))
	}
}

func loadPayload(t *testing.T, payload []byte, m *model.Model) *iptrace.IPTablesTracer {
	t.Helper()
	d, err := route.LoadIPTables(bytes.NewReader(payload), m, render.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := iptrace.NewIPTablesTracer(d.IPT, iptrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func traceOf(t *testing.T, tr *iptrace.IPTablesTracer, p trace.Packet) iptrace.Trace {
	t.Helper()
	out, err := tr.Trace(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestWalkProbeNeedsAKeptService: a keep list that names no service is an
// error, not an empty probe.
func TestWalkProbeNeedsAKeptService(t *testing.T) {
	gen, _ := model.NewGenerator(model.GeneratorConfig{Services: 3, EndpointsPerService: 1, Seed: 1})
	var full bytes.Buffer
	if _, err := iptables.Render(&full, &model.Model{Cluster: model.DefaultCluster(), Services: gen}, iptables.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := iptables.WalkProbe(full.Bytes(), []netip.Addr{netip.MustParseAddr("192.0.2.1")}); err == nil {
		t.Fatal("no error for a keep list without a service")
	}
}

// FuzzWalkProbe: any payload is either refused or turned into one whose
// every line was in the input or is a KUBE-SERVICES rule with its jump
// rewritten; it never panics.
func FuzzWalkProbe(f *testing.F) {
	f.Add([]byte("*nat\n:KUBE-SERVICES - [0:0]\n:KUBE-SVC-A - [0:0]\n-A KUBE-SERVICES -d 10.0.0.1/32 -j KUBE-SVC-A\nCOMMIT\n"), "10.0.0.1")
	f.Add([]byte("-A KUBE-SERVICES -d 10.0.0.1 -j KUBE-SVC-A\n-A KUBE-SERVICES -d 10.0.0.2 -j KUBE-SVC-B\n-A KUBE-SVC-B -j KUBE-SEP-C\n"), "10.0.0.2")
	f.Fuzz(func(t *testing.T, payload []byte, keep string) {
		a, err := netip.ParseAddr(keep)
		if err != nil {
			return
		}
		out, rules, err := iptables.WalkProbe(payload, []netip.Addr{a})
		if err != nil {
			return
		}
		in := map[string]bool{}
		for _, line := range strings.Split(string(payload), "\n") {
			in[strings.TrimSuffix(line, "\r")] = true // lines as bufio.ScanLines reads them
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if strings.HasPrefix(line, "-A ") {
				n++
			}
			if !in[line] && !strings.HasPrefix(line, "-A ") {
				t.Fatalf("line %q is not from the input", line)
			}
		}
		if n != rules {
			t.Fatalf("%d rules counted, %d in the output", rules, n)
		}
	})
}
