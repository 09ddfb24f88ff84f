package iptrace

import (
	"math"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/trace"
)

// TestExampleFromPod traces kube-proxy's example: two endpoints at 0.5 each
// (0.5·2^31 is exact, so the effective probability is exactly 0.5),
// masqueraded only from outside the pod CIDR.
func TestExampleFromPod(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "kube-proxy-example.rules"), Options{})
	tests := []struct {
		src  string
		masq bool
	}{{"10.0.0.5", false}, {"192.168.1.1", true}}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			got := mustTrace(t, tr, tcp(tc.src, "172.30.0.43", 80))
			want := []netip.AddrPort{netip.MustParseAddrPort("10.0.3.2:80"), netip.MustParseAddrPort("10.0.3.3:80")}
			if len(got.Endpoints) != 2 {
				t.Fatalf("endpoints = %+v", got.Endpoints)
			}
			for i, e := range got.Endpoints {
				if e.Endpoint != want[i] || e.Probability != 0.5 || e.Effective != 0.5 || e.Masquerade != tc.masq || e.Verdict != Accept {
					t.Errorf("endpoint %d = %v p=%v eff=%v masq=%v %s", i, e.Endpoint, e.Probability, e.Effective, e.Masquerade, e.Verdict)
				}
			}
			if got.Verdict != Accept || got.Masquerade != tc.masq || got.Service != "ns3/svc3:p80" || got.DNAT != want[0] || got.Branches != 2 {
				t.Errorf("main branch: %s", got)
			}
			if hasFlag(got, "deviates") {
				t.Errorf("a 50/50 split was flagged: %v", got.Flags)
			}
			checkGolden(t, "example-from-"+tc.src+".trace", got.String())
		})
	}
}

func TestThreeEndpoints(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "services.rules"), Options{})
	got := mustTrace(t, tr, tcp("10.0.0.5", "172.30.0.45", 80))
	if len(got.Endpoints) != 3 {
		t.Fatalf("endpoints = %+v", got.Endpoints)
	}
	// Computed at run time in float64, in the tracer's order.
	p1, half := 0.3333333333, 0.5
	e1 := 715827883.0 / (1 << 31) // lround(0.3333333333 * 2^31) / 2^31
	wantNominal := []float64{p1, (1 - p1) * half, (1 - p1) * half}
	wantEffective := []float64{e1, (1 - e1) * half, (1 - e1) * half}
	for i, e := range got.Endpoints {
		if e.Probability != wantNominal[i] || e.Effective != wantEffective[i] {
			t.Errorf("endpoint %v: p=%.17g eff=%.17g, want %.17g %.17g", e.Endpoint, e.Probability, e.Effective, wantNominal[i], wantEffective[i])
		}
		if math.Abs(e.Effective-1.0/3) > 1e-9 {
			t.Errorf("endpoint %v: effective %v is not about 1/3", e.Endpoint, e.Effective)
		}
	}
	if hasFlag(got, "deviates") || hasFlag(got, "affinity") {
		t.Errorf("unexpected flags %v", got.Flags)
	}
	// SVC rules: masq, stat, [stat], last; main branch = first endpoint.
	if got.Endpoints[0].RulesEvaluated >= got.Endpoints[2].RulesEvaluated {
		t.Errorf("the last endpoint should cost more rules: %d vs %d", got.Endpoints[0].RulesEvaluated, got.Endpoints[2].RulesEvaluated)
	}
}

func TestVerdictsAndFlags(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "services.rules"), Options{LocalAddrs: []netip.Addr{netip.MustParseAddr("192.168.1.10")}})
	tests := []struct {
		name      string
		pkt       trace.Packet
		verdict   Verdict
		endpoints int
		masq      bool
		flag      string // in Flags, or else in the rendered trace
	}{
		{"no service falls through", tcp("10.0.0.5", "172.30.0.99", 80), Accept, 0, false, "no service"},
		{"REJECT in filter KUBE-SERVICES", tcp("10.0.0.5", "172.30.0.46", 80), Reject, 0, false, ""},
		{"REJECT for a nodePort without endpoints", tcp("203.0.113.9", "192.168.1.10", 3006), Reject, 0, false, ""},
		{"ClientIP affinity", tcp("10.0.0.5", "172.30.0.47", 80), Accept, 2, false, "ClientIP affinity"},
		{"skewed split", tcp("10.0.0.5", "172.30.0.48", 80), Accept, 2, false, "split deviates from uniform by 0.4"},
		{"nodePort is masqueraded", tcp("203.0.113.9", "192.168.1.10", 3005), Accept, 3, true, "service ns5/svc5:p80"},
		{"wrong port", tcp("10.0.0.5", "172.30.0.45", 81), Accept, 0, false, "no service"},
		{"udp to a tcp service", trace.Packet{Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("172.30.0.45"), Proto: "udp", DPort: 80}, Accept, 0, false, "no service"},
		{"from the node", trace.Packet{Src: netip.MustParseAddr("192.168.1.10"), Dst: netip.MustParseAddr("172.30.0.45"), Proto: "tcp", DPort: 80, From: "node"}, Accept, 3, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustTrace(t, tr, tc.pkt)
			if got.Verdict != tc.verdict || len(got.Endpoints) != tc.endpoints || got.Masquerade != tc.masq {
				t.Errorf("got %s", got)
			}
			if tc.flag != "" && !hasFlag(got, tc.flag) && !strings.Contains(got.String(), tc.flag) {
				t.Errorf("flags %q lack %q", got.Flags, tc.flag)
			}
		})
	}
}

// TestRecentHit traces a later packet of an affinity client: the recent
// list holds its source, so the endpoint is certain.
func TestRecentHit(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "services.rules"), Options{RecentHits: []string{"KUBE-SEP-BCLOLPJIZY6YOZVP"}})
	got := mustTrace(t, tr, tcp("10.0.0.5", "172.30.0.47", 80))
	if len(got.Endpoints) != 1 || got.Endpoints[0].Endpoint != netip.MustParseAddrPort("10.180.0.8:80") || got.Endpoints[0].Effective != 1 {
		t.Errorf("got %s", got)
	}
}

func TestKernelProbabilityResolution(t *testing.T) {
	dump := parseDump(t, `*nat
:KUBE-SVC-A - [0:0]
:KUBE-SEP-A - [0:0]
:KUBE-SEP-B - [0:0]
-A PREROUTING -j KUBE-SVC-A
-A KUBE-SVC-A -m statistic --mode random --probability 0.0000100000 -j KUBE-SEP-A
-A KUBE-SVC-A -j KUBE-SEP-B
-A KUBE-SEP-A -m tcp -p tcp -j DNAT --to-destination 10.1.0.1:80
-A KUBE-SEP-B -m tcp -p tcp -j DNAT --to-destination 10.1.0.2:80
COMMIT
`)
	got := mustTrace(t, mustTracer(t, dump, Options{}), tcp("10.0.0.5", "172.30.0.1", 80))
	a := got.Endpoints[0]
	if a.Probability != 0.00001 || a.Effective != 21475.0/(1<<31) {
		t.Errorf("p=%v eff=%v, want 1e-05 and %v", a.Probability, a.Effective, 21475.0/(1<<31))
	}
	if got.Service != "" || got.DNAT != netip.MustParseAddrPort("10.1.0.2:80") {
		t.Errorf("main branch should be the likelier one: %s", got)
	}
}

func TestChainControl(t *testing.T) {
	dump := parseDump(t, `*filter
:A - [0:0]
:B - [0:0]
:C - [0:0]
:FORWARD DROP [0:0]
-A FORWARD -j A
-A FORWARD -j ACCEPT
-A A -g B
-A A -j DROP
-A B -p udp -j REJECT
-A B -j C
-A B -j DROP
-A C -m mark --mark 0x1/0x1 -j DROP
-A C -i eth0 -j DROP
-A C -f -j DROP
-A C -j RETURN
-A C -j DROP
COMMIT
*nat
COMMIT
`)
	tr := mustTracer(t, dump, Options{})
	p := tcp("10.0.0.5", "10.1.0.1", 80)
	p.InIface = "eth1"
	got := mustTrace(t, tr, p)
	// FORWARD -> A -g B -> C returns -> B drops.
	if got.Verdict != Drop || len(got.Undecided) != 0 {
		t.Fatalf("got %s", got)
	}
	last := got.Path[len(got.Path)-1]
	if last.Chain() != "B" || last.RuleIndex() != 3 {
		t.Errorf("dropped by %s #%d, want B #3 (goto returns to FORWARD only when B ends)", last.Chain(), last.RuleIndex())
	}
	// Without the input interface, -i eth0 is undecided; either way the
	// packet is dropped (by C or by B), so the verdict stands.
	either := mustTrace(t, tr, tcp("10.0.0.5", "10.1.0.1", 80))
	if either.Verdict != Drop || len(either.Undecided) != 1 || !strings.Contains(either.Undecided[0], "filter C #2: -i eth0") ||
		!hasFlag(either, "give the same outcome either way") {
		t.Errorf("without --in-iface: %s %v", either, either.Undecided)
	}
	if got.RulesEvaluated != 9 {
		t.Errorf("rules evaluated = %d, want 9:\n%s", got.RulesEvaluated, got)
	}
}

func TestErrors(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "kube-proxy-example.rules"), Options{})
	bad := []struct {
		name string
		pkt  trace.Packet
		want string
	}{
		{"no source", trace.Packet{Dst: netip.MustParseAddr("1.2.3.4"), Proto: "tcp"}, "addresses are required"},
		{"mixed families", trace.Packet{Src: netip.MustParseAddr("::1"), Dst: netip.MustParseAddr("1.2.3.4"), Proto: "tcp"}, "different families"},
		{"bad protocol", trace.Packet{Src: netip.MustParseAddr("1.2.3.4"), Dst: netip.MustParseAddr("1.2.3.4"), Proto: "tcpp"}, `unknown protocol "tcpp"`},
		{"bad origin", trace.Packet{Src: netip.MustParseAddr("1.2.3.4"), Dst: netip.MustParseAddr("1.2.3.4"), Proto: "tcp", From: "moon"}, `packet origin must be "pod" or "node"`},
	}
	for _, tc := range bad {
		if _, err := tr.Trace(tc.pkt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	loop := parseDump(t, "*filter\n:A - [0:0]\n:B - [0:0]\n-A A -j B\n-A B -j A\nCOMMIT\n")
	if _, err := NewIPTablesTracer(loop, Options{}); err == nil || !strings.Contains(err.Error(), "jump loop A -> B -> A") {
		t.Errorf("loop: error %v", err)
	}
}

// TestPartialDumpJump traces to a service whose chain a partial restore did
// not include: the jump is flagged and the packet falls through.
func TestPartialDumpJump(t *testing.T) {
	tr := mustTracer(t, loadDump(t, "kube-proxy-example.rules"), Options{})
	got := mustTrace(t, tr, tcp("10.0.0.5", "172.30.0.41", 80))
	if len(got.Endpoints) != 0 || !hasFlag(got, "jump to KUBE-SVC-XPGD46QRK7WJZT7O, which is not in the dump") {
		t.Errorf("got %s", got)
	}
}
