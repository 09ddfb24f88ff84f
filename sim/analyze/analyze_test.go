package analyze

import (
	"bytes"
	"fmt"
	"math"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/iptables"
	renderipvs "github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/render/nftables"
	"github.com/svclab/svclab/sim/trace"
)

func renderDump(t testing.TB, mode string, services, endpoints int) *Dump {
	t.Helper()
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: services, EndpointsPerService: endpoints, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
	var b bytes.Buffer
	switch mode {
	case KindIPTables:
		_, err = iptables.Render(&b, m, iptables.DefaultOptions())
	case KindIPVS:
		_, err = renderipvs.Render(&b, m, renderipvs.Options{})
	default:
		_, err = nftables.Render(&b, m, nftables.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The reference is kube-proxy's own output (TestSyncProxyRulesRepeated).
func TestTraceKubeProxyExample(t *testing.T) {
	d, err := LoadFile("testdata/kube-proxy-example.txt")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTracer(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src  string
		masq bool
	}{{"10.0.0.5", false}, {"192.168.1.1", true}}
	for _, tt := range tests {
		res, err := tr.Trace(trace.Packet{Src: netip.MustParseAddr(tt.src), Dst: netip.MustParseAddr("172.30.0.43"), Proto: "tcp", DPort: 80})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Endpoints) != 2 || res.Endpoints[0].Endpoint != "10.0.3.2:80" || res.Endpoints[1].Endpoint != "10.0.3.3:80" {
			t.Fatalf("endpoints %+v", res.Endpoints)
		}
		for _, e := range res.Endpoints {
			if e.Probability != 0.5 || e.Effective != 0.5 || e.Masquerade != tt.masq {
				t.Errorf("from %s: %+v, want probability 0.5, masquerade %v", tt.src, e, tt.masq)
			}
		}
	}
}

// TestSample: a sample traces at most its limit of the destinations,
// evenly spaced with the first and the last, and its mean is the whole
// dump's (a linear walk); a limit below 2 or above the destinations traces
// every one.
func TestSample(t *testing.T) {
	d := renderDump(t, KindIPTables, 201, 1)
	src := netip.MustParseAddr("10.244.255.1")
	all, err := Analyze(d, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		limit, want int
	}{{5, 5}, {101, 101}, {0, 201}, {1, 201}, {500, 201}}
	for _, tt := range tests {
		rep, err := Sample(d, src, Options{}, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		n := len(rep.Services)
		if n != tt.want || rep.Services[0].Position != all.Services[0].Position || rep.Services[n-1].Position != all.Services[200].Position {
			t.Fatalf("limit %d: %d traced from position %d to %d; want %d from the first to the last", tt.limit, n, rep.Services[0].Position, rep.Services[n-1].Position, tt.want)
		}
		if rep.Mean != all.Mean || rep.Worst != all.Worst {
			t.Errorf("limit %d: mean %v worst %d, every destination's %v and %d", tt.limit, rep.Mean, rep.Worst, all.Mean, all.Worst)
		}
	}
}

func TestAnalyzeIPTablesCostGrowsWithPosition(t *testing.T) {
	rep, err := Analyze(renderDump(t, KindIPTables, 200, 3), netip.MustParseAddr("10.244.255.1"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Services) != 200 || rep.Flagged != 0 || rep.Endpoints[3] != 200 {
		t.Fatalf("services %d, flagged %d, endpoints %v", len(rep.Services), rep.Flagged, rep.Endpoints)
	}
	for i := 1; i < len(rep.Services); i++ {
		if rep.Services[i].RulesEvaluated != rep.Services[i-1].RulesEvaluated+1 {
			t.Fatalf("service %d costs %d rules after %d: each later service should cost one more KUBE-SERVICES rule",
				i, rep.Services[i].RulesEvaluated, rep.Services[i-1].RulesEvaluated)
		}
	}
	if rep.Worst != rep.Services[199].RulesEvaluated || math.Abs(rep.Mean-float64(rep.Services[0].RulesEvaluated+rep.Worst)/2) > 0.5 {
		t.Fatalf("worst %d mean %.1f", rep.Worst, rep.Mean)
	}
}

func TestAnalyzeNFTablesCostIsConstant(t *testing.T) {
	rep, err := Analyze(renderDump(t, KindNFTables, 200, 3), netip.MustParseAddr("10.244.255.1"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Services) != 200 || rep.Worst != rep.Services[0].RulesEvaluated || rep.Services[0].MapLookups == 0 {
		t.Fatalf("services %d worst %d first %+v", len(rep.Services), rep.Worst, rep.Services[0])
	}
	if rep.Services[0].Endpoints != 3 || rep.Flagged != 0 {
		t.Fatalf("first service %+v, flagged %d", rep.Services[0], rep.Flagged)
	}
}

func TestLoadRejectsOtherText(t *testing.T) {
	if _, err := Load(bytes.NewBufferString("hello world\n")); err == nil {
		t.Fatal("accepted text that is no dump")
	}
	if _, err := Load(bytes.NewBufferString("*nat\n-A NOPE -j ACCEPT\nCOMMIT\n")); err == nil {
		t.Fatal("accepted a rule for an undeclared chain")
	}
}

// BenchmarkAnalyze50kServices: the target is under 5 s for a 50,000-service
// dump (parse + trace every service).
func BenchmarkAnalyze50kServices(b *testing.B) {
	gen, _ := model.NewGenerator(model.GeneratorConfig{Services: 50000, EndpointsPerService: 2, Seed: 1})
	var text bytes.Buffer
	if _, err := iptables.Render(&text, &model.Model{Cluster: model.DefaultCluster(), Services: gen}, iptables.DefaultOptions()); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(text.Len()))
	for b.Loop() {
		d, err := Load(bytes.NewReader(text.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(d, netip.MustParseAddr("10.244.255.1"), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIPTablesNFTRuleset: nft's listing of iptables-nft's tables is
// recognised and pointed at iptables-nft-save.
func TestIPTablesNFTRuleset(t *testing.T) {
	_, err := LoadFile("testdata/iptables-nft-ruleset.nft")
	if err == nil || !strings.Contains(err.Error(), "this is iptables-nft; use iptables-nft-save") {
		t.Fatalf("error = %v", err)
	}
}

// TestNFTJSONMatchesText: `nft -j list ruleset` and `nft list ruleset` of
// the same kernel ruleset (a host firewall and kube-proxy's table, nft
// v1.0.6) trace alike.
func TestNFTJSONMatchesText(t *testing.T) {
	var tracers []Tracer
	for _, f := range []string{"testdata/host-and-kube-proxy.nft", "testdata/host-and-kube-proxy.json"} {
		d, err := LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTracer(d, Options{Local: []netip.Addr{netip.MustParseAddr("192.168.0.2")}, SkipPaths: true})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tracers = append(tracers, tr)
	}
	n := 0
	for _, dst := range []string{"10.102.10.127", "10.111.53.115", "192.168.0.2", "10.1.2.3"} {
		for _, port := range []uint16{22, 53, 80, 443, 9999} {
			for _, in := range []string{"eth0", "lo", ""} {
				p := trace.Packet{Src: netip.MustParseAddr("198.51.100.7"), Dst: netip.MustParseAddr(dst), Proto: "tcp", DPort: port, From: "pod", InIface: in, OutIface: "eth0"}
				a, errA := tracers[0].Trace(p)
				b, errB := tracers[1].Trace(p)
				if (errA == nil) != (errB == nil) || a.Verdict != b.Verdict || a.Service != b.Service ||
					a.RulesEvaluated != b.RulesEvaluated || fmt.Sprint(a.Endpoints) != fmt.Sprint(b.Endpoints) {
					t.Errorf("%v: text %+v %v, json %+v %v", p, a, errA, b, errB)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no packets")
	}
}

// TestIPVSDump: svclab's IPVS rendering (ipvsadm, ipset and iptables
// parts) is traced, not refused: each real server 1/3 under rr.
func TestIPVSDump(t *testing.T) {
	d := renderDump(t, KindIPVS, 5, 3)
	rep, err := Analyze(d, netip.MustParseAddr("10.244.255.1"), Options{})
	if err != nil || d.Kind != KindIPVS || len(rep.Services) != 5 || rep.Services[0].Endpoints != 3 || rep.Flagged != 0 {
		t.Fatalf("report %+v, %v", rep, err)
	}
}

// TestIPv6Services: ip6tables-save services are analysed, with an IPv6
// client even when --src is IPv4.
func TestIPv6Services(t *testing.T) {
	d, err := LoadFile("../trace/iptrace/testdata/ip6tables.rules")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(d, netip.MustParseAddr("10.244.255.1"), Options{})
	if err != nil || len(rep.Services) != 2 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	for _, s := range rep.Services {
		switch s.Destination {
		case "[fd00:10:96::10]:80":
			if s.Endpoints != 2 || s.Verdict != "ACCEPT" || s.NonUniform {
				t.Errorf("svc1: %+v", s)
			}
		case "[fd00:10:96::20]:80":
			if s.Verdict != "REJECT" {
				t.Errorf("svc2: %+v", s)
			}
		default:
			t.Errorf("unexpected %+v", s)
		}
	}
}
