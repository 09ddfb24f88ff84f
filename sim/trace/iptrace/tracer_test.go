package iptrace

import (
	"fmt"
	"math"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace"
)

// TestIndexMatchesLinearWalk checks that the destination index changes
// nothing but speed: endpoints, verdicts and rule counts equal those of a
// tracer that walks every rule.
func TestIndexMatchesLinearWalk(t *testing.T) {
	dump := parseDump(t, generateServices(40, 3))
	fast, err := newIPTablesTracer(dump, Options{}, indexMinRules)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := newIPTablesTracer(dump, Options{}, math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 42 {
		p := trace.Packet{Src: netip.MustParseAddr("192.168.7.7"), Dst: serviceIP(i), Proto: "tcp", DPort: 80}
		a, b := mustTrace(t, fast, p), mustTrace(t, slow, p)
		if a.RulesEvaluated != b.RulesEvaluated || a.ExpectedRulesEvaluated != b.ExpectedRulesEvaluated ||
			len(a.Endpoints) != len(b.Endpoints) || a.Verdict != b.Verdict || matched(a) != matched(b) {
			t.Fatalf("service %d: indexed and linear walks differ:\n%s\n%s", i, a, b)
		}
		if i < 40 && (len(a.Endpoints) != 3 || a.RulesEvaluated < i+1) {
			t.Errorf("service %d: %s", i, a)
		}
	}
}

func matched(tr Trace) string {
	var b strings.Builder
	for _, s := range tr.Path {
		if s.Matched {
			b.WriteString(s.Rule() + "\n")
		}
	}
	return b.String()
}

func TestTraceIntoReuses(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "services.rules"), Options{})
	var out Trace
	p := tcp("10.0.0.5", "172.30.0.45", 80)
	if err := tr.TraceInto(p, &out); err != nil {
		t.Fatal(err)
	}
	want := out.String()
	allocs := testing.AllocsPerRun(100, func() {
		if err := tr.TraceInto(p, &out); err != nil {
			t.Fatal(err)
		}
	})
	if out.String() != want {
		t.Errorf("second trace differs:\n%s\n%s", want, out)
	}
	if allocs > 2 && !raceEnabled {
		t.Errorf("TraceInto allocates %.0f times per packet", allocs)
	}
}

func TestSkipPaths(t *testing.T) {
	dump := loadDump(t, "services.rules")
	full := mustTrace(t, mustTracer(t, dump, Options{}), tcp("10.0.0.5", "172.30.0.45", 80))
	bare := mustTrace(t, mustTracer(t, dump, Options{SkipPaths: true}), tcp("10.0.0.5", "172.30.0.45", 80))
	if len(bare.Path) != 0 || len(bare.Endpoints) != 3 || len(bare.Endpoints[0].Path) != 0 {
		t.Fatalf("SkipPaths still has paths: %s", bare)
	}
	for i := range full.Endpoints {
		f, b := full.Endpoints[i], bare.Endpoints[i]
		if f.Endpoint != b.Endpoint || f.Effective != b.Effective || f.RulesEvaluated != b.RulesEvaluated {
			t.Errorf("endpoint %d differs: %+v vs %+v", i, f, b)
		}
	}
	if full.RulesEvaluated != bare.RulesEvaluated || full.Verdict != bare.Verdict {
		t.Errorf("main branch differs")
	}
}

// TestTraceIntoSharedPath reuses one Trace for a packet whose main branch
// is an endpoint (Path shared with it) and then for one whose main branch
// is not: the endpoint's path must not be overwritten.
func TestTraceIntoSharedPath(t *testing.T) {
	dump := parseDump(t, `*nat
:KUBE-SERVICES - [0:0]
:KUBE-SVC-A - [0:0]
:KUBE-SEP-A - [0:0]
:KUBE-PAD - [0:0]
-A KUBE-SERVICES -d 172.30.0.1 -j KUBE-PAD
-A KUBE-PAD -p udp -j DROP
-A KUBE-PAD -p udp -j DROP
-A KUBE-PAD -p udp -j DROP
-A KUBE-PAD -p udp -j DROP
-A KUBE-PAD -p udp -j DROP
-A KUBE-PAD -p udp -j DROP
-A KUBE-SERVICES -d 172.30.0.1 -j KUBE-SVC-A
-A KUBE-SERVICES -d 172.30.0.2 -j KUBE-SVC-A
-A KUBE-SVC-A -d 172.30.0.2 -m statistic --mode random --probability 0.3 -j KUBE-SEP-A
-A KUBE-SVC-A -d 172.30.0.1 -j KUBE-SEP-A
-A KUBE-SEP-A -p tcp -j DNAT --to-destination 10.1.0.1:80
COMMIT
`)
	tr := mustTracer(t, dump, Options{})
	var out Trace
	for _, dst := range []string{"172.30.0.1", "172.30.0.2"} {
		p := tcp("10.0.0.5", dst, 80)
		if err := tr.TraceInto(p, &out); err != nil {
			t.Fatal(err)
		}
		fresh := mustTrace(t, tr, p)
		if out.String() != fresh.String() || fmt.Sprint(out.Endpoints) != fmt.Sprint(fresh.Endpoints) {
			t.Errorf("%s: reused trace differs:\n%s%v\n%s%v", dst, out, out.Endpoints, fresh, fresh.Endpoints)
		}
	}
	if out.DNAT.IsValid() || len(out.Endpoints) != 1 || out.Endpoints[0].Effective != iptables.EffectiveProbability(0.3) {
		t.Errorf("last trace: %s", out)
	}
}

// TestConcurrentTraces uses one tracer from several goroutines (run with
// -race to check the claim that it is safe for concurrent use).
func TestConcurrentTraces(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "services.rules"), Options{})
	want := mustTrace(t, tr, tcp("10.0.0.5", "172.30.0.45", 80)).String()
	errs := make(chan string, 4)
	for range 4 {
		go func() {
			var out Trace
			for range 200 {
				if err := tr.TraceInto(tcp("10.0.0.5", "172.30.0.45", 80), &out); err != nil || out.String() != want {
					errs <- fmt.Sprint(err, out)
					return
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestEndpointPaths: each endpoint's path (built partly by copying the
// prefix it shares with an earlier endpoint's) starts at the hook, holds
// the DNAT rule to that endpoint, and equals the path traced alone.
func TestEndpointPaths(t *testing.T) {
	tr := mustTracer(t, parseDump(t, generateServices(50, 4)), Options{})
	var reused Trace
	for i := range 50 {
		p := tcp("192.168.7.7", serviceIP(i).String(), 80)
		if err := tr.TraceInto(p, &reused); err != nil {
			t.Fatal(err)
		}
		fresh := mustTrace(t, tr, p)
		if len(reused.Endpoints) != 4 || fmt.Sprint(reused.Endpoints) != fmt.Sprint(fresh.Endpoints) {
			t.Fatalf("%v: endpoints differ:\n%v\n%v", p, reused.Endpoints, fresh.Endpoints)
		}
		for _, e := range reused.Endpoints {
			dnat := false
			for _, s := range e.Path {
				dnat = dnat || (s.Matched && strings.HasSuffix(s.Rule(), "--to-destination "+e.Endpoint.String()))
			}
			if e.Path[0].Chain() != "PREROUTING" || !dnat {
				t.Errorf("%v: path of %v: %v", p, e.Endpoint, e.Path)
			}
		}
	}
}

// TestPortIndexMatchesLinearWalk: the --dport lists of the index (a
// NodePort chain of one rule per port, with a range, a negated port and a
// second rule on one port among them) change nothing but speed, for
// packets to every NodePort of a node address and to ports none uses.
func TestPortIndexMatchesLinearWalk(t *testing.T) {
	const n = 40
	var rules strings.Builder
	for i := range n {
		fmt.Fprintf(&rules, "-A KUBE-NODEPORTS -m comment --comment \"ns%d/svc%d:p80\" -m tcp -p tcp --dport %d -j KUBE-SVC-%016X\n", i, i, 30000+i, i)
		switch i {
		case 10:
			fmt.Fprintf(&rules, "-A KUBE-NODEPORTS -m tcp -p tcp --dport 30020:30025 -j KUBE-SVC-%016X\n", i)
		case 20:
			fmt.Fprintf(&rules, "-A KUBE-NODEPORTS -m tcp -p tcp ! --dport 30030 -j RETURN\n")
		case 30:
			fmt.Fprintf(&rules, "-A KUBE-NODEPORTS -m udp -p udp --dport %d -j KUBE-SVC-%016X\n", 30000+i, i+1)
		}
	}
	text := generateServices(n, 2)
	text = text[:strings.LastIndex(text, "COMMIT\n")] + rules.String() + "COMMIT\n"
	dump := parseDump(t, text)
	node := netip.MustParseAddr("192.168.99.1")
	opts := Options{LocalAddrs: []netip.Addr{node}}
	fast, err := newIPTablesTracer(dump, opts, indexMinRules)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := newIPTablesTracer(dump, opts, math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	served := 0
	for port := 29998; port < 30000+n+2; port++ {
		for _, proto := range []string{"tcp", "udp"} {
			p := trace.Packet{Src: netip.MustParseAddr("192.168.7.7"), Dst: node, Proto: proto, DPort: uint16(port)}
			a, b := mustTrace(t, fast, p), mustTrace(t, slow, p)
			if a.RulesEvaluated != b.RulesEvaluated || a.ExpectedRulesEvaluated != b.ExpectedRulesEvaluated ||
				len(a.Endpoints) != len(b.Endpoints) || a.Verdict != b.Verdict || matched(a) != matched(b) {
				t.Fatalf("%s port %d: indexed and linear walks differ:\n%s\n%s", proto, port, a, b)
			}
			if len(a.Endpoints) > 0 {
				served++
			}
		}
	}
	if served < n/2 {
		t.Errorf("only %d of the NodePorts reached endpoints: the test does not exercise the port index", served)
	}
}
