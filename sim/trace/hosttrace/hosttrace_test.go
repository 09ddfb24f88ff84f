package hosttrace

import (
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/nfttrace"
)

func compileCorpus(t *testing.T, ruleset []byte) *nfttrace.Program {
	t.Helper()
	text, err := os.ReadFile("testdata/kube-proxy-iptables-nft.rules")
	if err != nil {
		t.Fatal(err)
	}
	d, err := iptables.ParseString(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if ruleset == nil {
		if ruleset, err = os.ReadFile("testdata/kube-proxy-iptables-nft.hostnft"); err != nil {
			t.Fatal(err)
		}
	}
	prog, _, err := Compile(d, "ip", ruleset, Options{LocalAddrs: []netip.Addr{netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("192.168.1.2")}})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// outcomes is "verdict endpoint p; ..." in outcome order.
func outcomes(r nfttrace.Result) string {
	var parts []string
	for _, o := range r.Outcomes {
		ep := "-"
		if o.Endpoint.IsValid() {
			ep = o.Endpoint.String()
		}
		parts = append(parts, fmt.Sprintf("%s %s %.2f", o.Verdict, ep, o.Effective))
	}
	return strings.Join(parts, "; ")
}

func TestOneWalkAcrossBothRulesets(t *testing.T) {
	prog := compileCorpus(t, nil)
	for _, tt := range []struct {
		name     string
		src, dst string
		port     uint16
		from     string
		mark     uint32
		want     string
		wantPath string // a step that must be on the first outcome's path
		service  string // the first outcome's Service
	}{
		// iptables DNAT (nat -100), then the nft forward chain (-10) sees
		// the endpoint and kube-proxy's masquerade mark and drops one.
		{"service, one endpoint dropped by the host firewall", "192.168.0.1", "10.96.10.1", 80, "pod", 0,
			"accept 10.244.1.10:8080 0.50; drop 10.244.2.20:8080 0.50", "ip nat KUBE-SEP-AAAAAAAAAAAAAAA1 #2", "ns1/web:http"},
		// nft prerouting (-120) marks; iptables filter INPUT (0) drops on
		// the mark before the nft input chain (10) would accept.
		{"mark set by nft, dropped by iptables", "203.0.113.5", "192.168.0.2", 22, "pod", 0, "drop - 1.00", "inet hostfw premark #1", ""},
		{"accepted by both", "198.51.100.7", "192.168.0.2", 22, "pod", 0, "accept - 1.00", "inet hostfw input #3", ""},
		{"iptables accepts, nft input policy drops", "192.168.0.1", "192.168.0.2", 22, "pod", 0, "drop - 1.00", "ip filter INPUT #4", ""},
		{"no endpoints: iptables REJECT after nft accept", "192.168.0.1", "10.96.10.3", 80, "pod", 0, "reject - 1.00", "inet hostfw forward #3", ""},
		{"NodePort via the node address", "192.168.0.1", "192.168.1.2", 30080, "pod", 0,
			"accept 10.244.1.10:8080 0.50; drop 10.244.2.20:8080 0.50", "ip nat KUBE-NODEPORTS #1", "ns1/web:http"},
		{"service from the node, masqueraded", "192.168.0.2", "10.96.10.2", 443, "node", 0, "accept 10.244.1.11:8443 1.00", "inet hostfw postcheck #2", "ns2/api:https"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := prog.Trace(trace.Packet{Src: netip.MustParseAddr(tt.src), Dst: netip.MustParseAddr(tt.dst), Proto: "tcp",
				DPort: tt.port, From: tt.from, InIface: "eth0", OutIface: "eth0", Mark: tt.mark})
			if err != nil {
				t.Fatal(err)
			}
			if got := outcomes(r); got != tt.want {
				t.Errorf("outcomes = %s, want %s", got, tt.want)
			}
			if got := r.Outcomes[0].Service; got != tt.service {
				t.Errorf("service = %q, want %q", got, tt.service)
			}
			var path []string
			for _, s := range r.Outcomes[0].Path {
				path = append(path, fmt.Sprintf("%s %s #%d", s.Table, s.Chain, s.Index+1))
			}
			if !strings.Contains(strings.Join(path, ", ")+",", tt.wantPath+",") {
				t.Errorf("path %s lacks %s", strings.Join(path, ", "), tt.wantPath)
			}
		})
	}
}

// A full nft list ruleset of the host, with the tables iptables-nft made,
// gives the same walk: those tables are recognised and skipped.
func TestIPTablesNFTTablesSkipped(t *testing.T) {
	own, err := os.ReadFile("testdata/kube-proxy-iptables-nft.hostnft")
	if err != nil {
		t.Fatal(err)
	}
	full := "# Warning: table ip filter is managed by iptables-nft, do not touch!\ntable ip filter {\n\tchain INPUT {\n\t\ttype filter hook input priority filter; policy accept;\n" +
		"\t\tcounter packets 0 bytes 0 xt match \"comment\" jump KUBE-FIREWALL\n\t}\n\n\tchain KUBE-FIREWALL {\n\t\tip daddr 127.0.0.0/8 xt match \"conntrack\" counter drop\n\t}\n}\n" + string(own)
	rest, skipped := StripIPTablesNFT([]byte(full))
	if strings.Join(skipped, ",") != "ip filter" || strings.Contains(string(rest), "KUBE-FIREWALL") || !strings.Contains(string(rest), "table inet hostfw") {
		t.Fatalf("skipped %v, rest:\n%s", skipped, rest)
	}
	prog := compileCorpus(t, []byte(full))
	r, err := prog.Trace(trace.Packet{Src: netip.MustParseAddr("203.0.113.5"), Dst: netip.MustParseAddr("192.168.0.2"), Proto: "tcp", DPort: 22, InIface: "eth0"})
	if err != nil || outcomes(r) != "drop - 1.00" {
		t.Fatalf("trace = %s, %v", outcomes(r), err)
	}
}
