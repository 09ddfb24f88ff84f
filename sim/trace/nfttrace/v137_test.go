package nfttrace

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
	"github.com/svclab/svclab/sim/trace"
)

// The v1.37 layout traced three ways, rendered transaction, the kernel's
// listing of it, and the v1.35 layout of the same model, must give the
// same endpoints, probabilities, verdicts and masquerading.
//
// testdata/split-137.nft is the rendered v1.37 transaction (golden: go
// test -update rewrites it); testdata/split-137-listing.txt is the
// kernel's listing of it, captured as root with
//
//	ip netns add svl-n137cap
//	ip netns exec svl-n137cap nft -f sim/trace/nfttrace/testdata/split-137.nft
//	ip netns exec svl-n137cap nft list ruleset > sim/trace/nfttrace/testdata/split-137-listing.txt
//	ip netns del svl-n137cap
//
// (split-137-listing.json likewise with nft -j list ruleset), and
// recaptured whenever the golden transaction changes.

// splitModel is split-2 (10.96.0.10:80 → two pods on :8080) and its
// neighbours: one endpoint, three endpoints, a NodePort, ClientIP
// affinity, no endpoints, and a service whose endpoints run elsewhere.
// Endpoints run on this node unless said otherwise, so that hairpin
// traffic is possible (kube-proxy v1.36+ only lists local endpoints in
// hairpin-connections).
func splitModel() *model.Model {
	c := model.DefaultCluster()
	eps := func(node string, ips ...string) []model.Endpoint {
		var out []model.Endpoint
		for _, ip := range ips {
			out = append(out, model.Endpoint{IP: addr(ip), Ready: true, Node: node})
		}
		return out
	}
	http := model.Port{Name: "http", Protocol: model.TCP, Port: 80, TargetPort: 8080}
	np := http
	np.NodePort = 30080
	dns := model.Port{Name: "dns", Protocol: model.UDP, Port: 53, TargetPort: 5353}
	svc := func(name, ip string, typ model.ServiceType, p model.Port, e []model.Endpoint) model.Service {
		return model.Service{Namespace: "demo", Name: name, Type: typ, ClusterIP: addr(ip), Ports: []model.Port{p}, Endpoints: e}
	}
	sticky := svc("sticky", "10.96.0.15", model.ClusterIP, http, eps(c.NodeName, "10.244.5.2", "10.244.5.3"))
	sticky.Affinity = model.Affinity{ClientIP: true, Timeout: 600}
	return &model.Model{Cluster: c, Services: model.Slice{
		svc("web", "10.96.0.10", model.ClusterIP, http, eps(c.NodeName, "10.244.1.2", "10.244.1.3")),
		svc("one", "10.96.0.11", model.ClusterIP, http, eps(c.NodeName, "10.244.2.2")),
		svc("three", "10.96.0.12", model.ClusterIP, dns, eps(c.NodeName, "10.244.3.2", "10.244.3.3", "10.244.3.4")),
		svc("nodeport", "10.96.0.13", model.NodePort, np, eps(c.NodeName, "10.244.4.2", "10.244.4.3")),
		svc("none", "10.96.0.14", model.ClusterIP, http, nil),
		sticky,
		svc("remote", "10.96.0.16", model.ClusterIP, http, eps("node-2", "10.244.6.2", "10.244.6.3")),
	}}
}

// splitPackets are the first packets traced through each form.
var splitPackets = []struct {
	name string
	pkt  trace.Packet
}{
	{"split-2 from a pod", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.10"), Proto: "tcp", DPort: 80}},
	{"split-2 hairpin", trace.Packet{Src: addr("10.244.1.3"), Dst: addr("10.96.0.10"), Proto: "tcp", DPort: 80}},
	{"split-2 from outside the cluster", trace.Packet{Src: addr("203.0.113.2"), Dst: addr("10.96.0.10"), Proto: "tcp", DPort: 80}},
	{"split-2 from the node", trace.Packet{Src: nodeIP, Dst: addr("10.96.0.10"), Proto: "tcp", DPort: 80, From: "node"}},
	{"split-2 wrong port", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.10"), Proto: "tcp", DPort: 81}},
	{"one endpoint", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.11"), Proto: "tcp", DPort: 80}},
	{"one endpoint hairpin", trace.Packet{Src: addr("10.244.2.2"), Dst: addr("10.96.0.11"), Proto: "tcp", DPort: 80}},
	{"three endpoints udp", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.12"), Proto: "udp", DPort: 53}},
	{"three endpoints hairpin", trace.Packet{Src: addr("10.244.3.4"), Dst: addr("10.96.0.12"), Proto: "udp", DPort: 53}},
	{"nodeport from outside", trace.Packet{Src: addr("203.0.113.2"), Dst: nodeIP, Proto: "tcp", DPort: 30080}},
	{"nodeport cluster IP", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.13"), Proto: "tcp", DPort: 80}},
	{"no endpoints", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.14"), Proto: "tcp", DPort: 80}},
	{"affinity, new client", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.15"), Proto: "tcp", DPort: 80}},
	{"affinity hairpin", trace.Packet{Src: addr("10.244.5.2"), Dst: addr("10.96.0.15"), Proto: "tcp", DPort: 80}},
	{"remote endpoints", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.16"), Proto: "tcp", DPort: 80}},
	{"unallocated cluster IP", trace.Packet{Src: addr("10.244.255.1"), Dst: addr("10.96.0.99"), Proto: "tcp", DPort: 80}},
}

// renderSplit renders splitModel in version v's layout.
func renderSplit(t *testing.T, v render.KubeProxyVersion) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := rendernft.Render(&buf, splitModel(), rendernft.Options{Version: v}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// outcomesString is what must agree between layouts: verdict and, per
// outcome, the DNAT destination, both probabilities and masquerading.
func outcomesString(r Result) string {
	var parts []string
	for _, o := range r.Outcomes {
		ep := "-"
		if o.Endpoint.IsValid() {
			ep = o.Endpoint.String()
		}
		parts = append(parts, fmt.Sprintf("%s %s p=%.10f kernel=%.10f masq=%v", o.Verdict, ep, o.Probability, o.Effective, o.Masquerade))
	}
	return r.Verdict + ": " + strings.Join(parts, "; ")
}

func traceAll(t *testing.T, src string) map[string]string {
	t.Helper()
	return traceProgram(t, compileText(t, src))
}

// traceProgram traces splitPackets through prog.
func traceProgram(t *testing.T, prog *Program) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range splitPackets {
		r, err := prog.Trace(p.pkt)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		out[p.name] = outcomesString(r)
	}
	return out
}

func TestV137MatchesV135(t *testing.T) {
	tx := renderSplit(t, render.KubeProxy137)
	golden.Check(t, filepath.Join("testdata", "split-137.nft"), []byte(tx))
	listing, err := os.ReadFile(filepath.Join("testdata", "split-137-listing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join("testdata", "split-137-listing.json"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := nftables.ParseJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := Compile(rs, Options{LocalAddrs: []netip.Addr{nodeIP}})
	if err != nil {
		t.Fatal(err)
	}
	want := traceAll(t, renderSplit(t, render.KubeProxy135))
	forms := []struct {
		name string
		prog *Program
	}{
		{"v1.37 transaction", compileText(t, tx)},
		{"v1.37 kernel listing", compileText(t, string(listing))},
		{"v1.37 kernel JSON listing", fromJSON},
	}
	for _, f := range forms {
		got := traceProgram(t, f.prog)
		for _, p := range splitPackets {
			t.Run(f.name+"/"+p.name, func(t *testing.T) {
				if got[p.name] != want[p.name] {
					t.Errorf("\n got  %s\n want %s (v1.35)", got[p.name], want[p.name])
				}
			})
		}
	}
	var g strings.Builder
	for _, p := range splitPackets {
		fmt.Fprintf(&g, "%-34s %s\n", p.name, want[p.name])
	}
	golden.Check(t, filepath.Join("testdata", "split-137-traces.golden"), []byte(g.String()))
}

// TestV137Path pins how a v1.37 trace reads: the service chain's numgen
// DNAT map is one rule, one map lookup, and the hairpin masquerade comes
// from @hairpin-connections.
func TestV137Path(t *testing.T) {
	r, err := compileText(t, renderSplit(t, render.KubeProxy137)).Trace(splitPackets[1].pkt)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outcomes) != 2 {
		t.Fatalf("outcomes: %+v", r.Outcomes)
	}
	var notes []string
	for _, s := range r.Outcomes[1].Path {
		if s.Note != "" {
			notes = append(notes, s.Chain+": "+s.Note)
		}
	}
	got := strings.Join(notes, "\n") + fmt.Sprintf("\nrules %d, map lookups %d\n", r.Outcomes[1].RulesEvaluated, r.Outcomes[1].MapLookups)
	golden.Check(t, filepath.Join("testdata", "split-137-path.golden"), []byte(got))
}

// TestV137TracerEdges: numgen values without a map entry fall through to
// the next rule; ct status reads the NAT done so far.
func TestV137TracerEdges(t *testing.T) {
	head := "add table ip t\nadd chain ip t pre { type nat hook prerouting priority -100 ; }\n" +
		"add chain ip t post { type nat hook postrouting priority 100 ; }\n"
	tests := []struct{ name, rules, want string }{
		{"missing entry falls through", "add rule ip t pre dnat ip addr . port to numgen random mod 2 map { 0 : 10.1.0.1 . 80 }\nadd rule ip t pre dnat to 10.1.0.9:90\n",
			"accept: accept 10.1.0.1:80 p=0.5000000000 kernel=0.5000000000 masq=false; accept 10.1.0.9:90 p=0.5000000000 kernel=0.5000000000 masq=false"},
		{"address only keeps the port", "add rule ip t pre dnat to numgen random mod 1 map { 0 : 10.1.0.1 }\n",
			"accept: accept 10.1.0.1:80 p=1.0000000000 kernel=1.0000000000 masq=false"},
		{"ct status dnat after dnat", "add rule ip t pre dnat to 10.1.0.1:80\nadd rule ip t post ct status dnat masquerade\n",
			"accept: accept 10.1.0.1:80 p=1.0000000000 kernel=1.0000000000 masq=true"},
		{"ct status dnat without dnat", "add rule ip t post ct status dnat masquerade\n",
			"accept: accept - p=1.0000000000 kernel=1.0000000000 masq=false"},
		{"ct status != dnat", "add rule ip t post ct status != dnat masquerade\n",
			"accept: accept - p=1.0000000000 kernel=1.0000000000 masq=true"},
		{"three values, kernel weights", "add rule ip t pre dnat ip addr . port to numgen random mod 3 map { 0 : 10.1.0.1 . 80 , 1 : 10.1.0.2 . 80 , 2 : 10.1.0.3 . 80 }\n",
			"accept: accept 10.1.0.1:80 p=0.3333333333 kernel=0.3333333335 masq=false; accept 10.1.0.2:80 p=0.3333333333 kernel=0.3333333333 masq=false; accept 10.1.0.3:80 p=0.3333333333 kernel=0.3333333333 masq=false"},
	}
	pkt := trace.Packet{Src: addr("10.2.0.1"), Dst: addr("10.3.0.1"), Proto: "tcp", DPort: 80}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := compileText(t, head+tt.rules).Trace(pkt)
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomesString(r); got != tt.want {
				t.Errorf("\n got  %s\n want %s", got, tt.want)
			}
		})
	}
}

// TestV137CompileErrors: what the tracer cannot model is an error, not a
// silent guess.
func TestV137CompileErrors(t *testing.T) {
	head := "add table ip t\nadd chain ip t pre { type nat hook prerouting priority -100 ; }\n"
	for _, rule := range []string{
		"dnat to numgen inc mod 2 map { 0 : 10.1.0.1 , 1 : 10.1.0.2 }",
		"ct status expected,bogus accept",
		"snat to numgen random mod 1 map { 0 : 10.1.0.1 }",
	} {
		t.Run(rule, func(t *testing.T) {
			if compileErr(t, head+"add rule ip t pre "+rule+"\n") == nil {
				t.Errorf("%q compiled", rule)
			}
		})
	}
}

// compileErr parses src and returns the Compile error.
func compileErr(t *testing.T, src string) error {
	t.Helper()
	rs, err := nftables.ParseString(src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(rs, Options{LocalAddrs: []netip.Addr{nodeIP}})
	return err
}
