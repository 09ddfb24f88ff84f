package nfttrace

import (
	"bytes"
	"math"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
	"github.com/svclab/svclab/sim/trace"
)

var (
	addr   = netip.MustParseAddr
	nodeIP = addr("192.168.0.2")
)

// fixture renders kube-proxy's rules for a few services (kube-proxy's test
// conventions: pods 10.0.0.0/8, services 172.30.0.0/16, node 192.168.0.2)
// and compiles them.
func fixture(t testing.TB) *Program {
	t.Helper()
	eps := func(ips ...string) []model.Endpoint {
		var out []model.Endpoint
		for _, ip := range ips {
			out = append(out, model.Endpoint{IP: addr(ip), Ready: true})
		}
		return out
	}
	p80 := model.Port{Name: "p80", Protocol: model.TCP, Port: 80, TargetPort: 80}
	np := p80
	np.NodePort = 3003
	svcs := model.Slice{
		{Namespace: "ns3", Name: "svc3", Type: model.ClusterIP, ClusterIP: addr("172.30.0.43"), Ports: []model.Port{p80}, Endpoints: eps("10.0.3.2", "10.0.3.3")},
		{Namespace: "ns6", Name: "svc6", Type: model.ClusterIP, ClusterIP: addr("172.30.0.46"), Ports: []model.Port{p80}},
		{Namespace: "ns5", Name: "svc5", Type: model.ClusterIP, ClusterIP: addr("172.30.0.45"), Ports: []model.Port{p80}, Endpoints: eps("10.180.0.3"), Affinity: model.Affinity{ClientIP: true, Timeout: 10800}},
		{Namespace: "ns8", Name: "svc8", Type: model.NodePort, ClusterIP: addr("172.30.0.48"), Ports: []model.Port{np}, Endpoints: eps("10.180.0.8")},
		{Namespace: "ns4", Name: "svc4", Type: model.ClusterIP, ClusterIP: addr("172.30.0.44"), Ports: []model.Port{p80}, Endpoints: eps("10.180.0.4", "10.180.0.5", "10.180.0.40")},
	}
	m := &model.Model{Cluster: model.Cluster{ClusterCIDR: netip.MustParsePrefix("10.0.0.0/8"), ServiceCIDR: netip.MustParsePrefix("172.30.0.0/16"), MasqueradeBit: 14}, Services: svcs}
	var buf bytes.Buffer
	// The v1.35 layout (endpoint chains), as the listing TestTraceListing
	// reads; v137_test.go covers v1.37.
	if _, err := rendernft.Render(&buf, m, rendernft.Options{Version: render.KubeProxy135}); err != nil {
		t.Fatal(err)
	}
	return compileText(t, buf.String())
}

func compileText(t testing.TB, src string) *Program {
	t.Helper()
	rs, err := nftables.ParseString(src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(rs, Options{LocalAddrs: []netip.Addr{nodeIP}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// endpointsString renders endpoints as "ip:port=p, …".
func endpointsString(eps []Endpoint) string {
	var parts []string
	for _, e := range eps {
		parts = append(parts, e.Addr.String()+"="+trimFloat(e.Probability))
	}
	return strings.Join(parts, ", ")
}

func trimFloat(p float64) string {
	switch {
	case math.Abs(p-1) < 1e-12:
		return "1"
	case math.Abs(p-0.5) < 1e-12:
		return "1/2"
	case math.Abs(p-1.0/3) < 1e-12:
		return "1/3"
	}
	return "?"
}

func TestTrace(t *testing.T) {
	prog := fixture(t)
	tests := []struct {
		name      string
		pkt       trace.Packet
		endpoints string
		verdict   string
		masq      bool
	}{
		{"two endpoints split evenly", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80, From: "pod"}, "10.0.3.2:80=1/2, 10.0.3.3:80=1/2", "accept", false},
		{"three endpoints", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.44"), Proto: "tcp", DPort: 80, From: "pod"}, "10.180.0.40:80=1/3, 10.180.0.4:80=1/3, 10.180.0.5:80=1/3", "accept", false},
		{"hairpin is masqueraded", trace.Packet{Src: addr("10.0.3.2"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80, From: "pod"}, "10.0.3.2:80=1/2, 10.0.3.3:80=1/2", "accept", true},
		{"off-cluster client is masqueraded", trace.Packet{Src: addr("203.0.113.2"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80, From: "pod"}, "10.0.3.2:80=1/2, 10.0.3.3:80=1/2", "accept", true},
		{"node to service", trace.Packet{Src: nodeIP, Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80, From: "node"}, "10.0.3.2:80=1/2, 10.0.3.3:80=1/2", "accept", true},
		{"no endpoints rejects", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.46"), Proto: "tcp", DPort: 80, From: "pod"}, "", "reject", false},
		{"wrong port rejects", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 81, From: "pod"}, "", "reject", false},
		{"wrong protocol rejects", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.43"), Proto: "udp", DPort: 80, From: "pod"}, "", "reject", false},
		{"unallocated cluster IP drops", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.99"), Proto: "tcp", DPort: 80, From: "pod"}, "", "drop", false},
		{"nodeport from outside", trace.Packet{Src: addr("203.0.113.2"), Dst: nodeIP, Proto: "tcp", DPort: 3003, From: "pod"}, "10.180.0.8:80=1", "accept", true},
		{"not a service", trace.Packet{Src: addr("10.0.0.2"), Dst: addr("10.0.9.9"), Proto: "tcp", DPort: 80, From: "pod"}, "", "accept", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := prog.Trace(tt.pkt)
			if err != nil {
				t.Fatal(err)
			}
			if got := endpointsString(r.Endpoints); got != tt.endpoints || r.Verdict != tt.verdict || r.Masquerade != tt.masq {
				t.Errorf("got %s %q masq=%v, want %s %q masq=%v", r.Verdict, got, r.Masquerade, tt.verdict, tt.endpoints, tt.masq)
			}
		})
	}
}

// TestTwoEndpointsCosts pins the work one new connection costs: rules
// started and verdict-map lookups, hook by hook (see the comment inside).
func TestTwoEndpointsCosts(t *testing.T) {
	r, err := fixture(t).Trace(trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80, From: "pod"})
	if err != nil {
		t.Fatal(err)
	}
	// prerouting filter: 2 rules, 1 lookup (@firewall-ips); nat: jump
	// services, the vmap, the masquerade check, numgen, two endpoint rules:
	// 6 rules, 2 lookups; forward: 5 rules, 1 lookup (@no-endpoint-services);
	// postrouting: 2 rules.
	if r.RulesEvaluated != 15 || r.MapLookups != 4 {
		t.Errorf("rules %d, lookups %d; want 15 and 4", r.RulesEvaluated, r.MapLookups)
	}
	if len(r.Outcomes) != 2 || r.Outcomes[0].Probability != 0.5 {
		t.Fatalf("outcomes: %+v", r.Outcomes)
	}
	var notes []string
	for _, s := range r.Outcomes[1].Path {
		if s.Note != "" {
			notes = append(notes, s.Note)
		}
	}
	want := "vmap @service-ips → goto service-4AT6LBPK-ns3/svc3/tcp/p80 | numgen 1 of 2 (p=1/2) → goto endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80 | dnat to 10.0.3.3:80"
	if got := strings.Join(notes, " | "); got != want {
		t.Errorf("path notes:\n got %s\nwant %s", got, want)
	}
}

func TestAffinityExplained(t *testing.T) {
	r, err := fixture(t).Trace(trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.45"), Proto: "tcp", DPort: 80, From: "pod"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Affinity, "is not in @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 yet") {
		t.Errorf("affinity explanation: %q", r.Affinity)
	}
	o := r.Outcomes[0]
	if o.AffinitySet != "affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80" || o.AffinityTimeout.Hours() != 3 {
		t.Errorf("outcome affinity: %q %v", o.AffinitySet, o.AffinityTimeout)
	}
}

// TestTraceListing traces the kernel's own listing of the same rules.
func TestTraceListing(t *testing.T) {
	src, err := os.ReadFile("../../nftables/testdata/listing-shapes.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := compileText(t, string(src)).Trace(trace.Packet{Src: addr("10.0.0.2"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80, From: "pod"})
	if err != nil {
		t.Fatal(err)
	}
	if got := endpointsString(r.Endpoints); got != "10.0.3.2:80=1/2, 10.0.3.3:80=1/2" || r.RulesEvaluated != 15 {
		t.Errorf("got %s after %d rules", got, r.RulesEvaluated)
	}
}

func TestTraceErrors(t *testing.T) {
	prog := fixture(t)
	for _, pkt := range []trace.Packet{
		{Src: addr("10.0.0.2"), Dst: addr("172.30.0.43"), Proto: "gre", DPort: 80},
		{Src: addr("10.0.0.2"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80, From: "moon"},
		{Src: addr("fd00::1"), Dst: addr("172.30.0.43"), Proto: "tcp", DPort: 80},
	} {
		if _, err := prog.Trace(pkt); err == nil {
			t.Errorf("%+v accepted", pkt)
		}
	}
	loop := "add table ip t\nadd chain ip t a\nadd chain ip t nat-output { type nat hook output priority -100 ; }\nadd rule ip t nat-output jump a\nadd rule ip t a jump a\n"
	if _, err := compileText(t, loop).Trace(trace.Packet{Src: nodeIP, Dst: addr("10.1.1.1"), Proto: "tcp", DPort: 1, From: "node"}); err == nil {
		t.Error("jump loop not reported")
	}
}

// TestNumgenEffective: the kernel's numgen draws floor(r·n/2^32), so a
// modulus that is not a power of two is not exactly uniform.
func TestNumgenEffective(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7, 1000} {
		sum := 0.0
		for k := range n {
			sum += NumgenEffective(k, n)
		}
		if sum != 1 {
			t.Errorf("n=%d: probabilities sum to %v", n, sum)
		}
	}
	if NumgenEffective(1, 4) != 0.25 {
		t.Errorf("power of two not exact")
	}
	if got, want := NumgenEffective(0, 3), 1431655766.0/(1<<32); got != want {
		t.Errorf("n=3 k=0: %v, want %v", got, want)
	}
	if got, want := NumgenEffective(2, 3), 1431655765.0/(1<<32); got != want {
		t.Errorf("n=3 k=2: %v, want %v", got, want)
	}
}
