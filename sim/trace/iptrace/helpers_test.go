package iptrace

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/trace"

	"github.com/svclab/svclab/sim/iptables"
)

func loadDump(t testing.TB, name string) *iptables.Dump {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return parseDump(t, string(b))
}

func parseDump(t testing.TB, text string) *iptables.Dump {
	t.Helper()
	d, err := iptables.ParseString(text)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustTracer(t testing.TB, d *iptables.Dump, opts Options) *IPTablesTracer {
	t.Helper()
	tr, err := NewIPTablesTracer(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func mustTrace(t testing.TB, tr *IPTablesTracer, p trace.Packet) Trace {
	t.Helper()
	out, err := tr.Trace(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func tcp(src, dst string, port uint16) trace.Packet {
	return trace.Packet{Src: netip.MustParseAddr(src), Dst: netip.MustParseAddr(dst), Proto: "tcp", DPort: port, From: "pod"}
}

func hasFlag(tr Trace, substr string) bool {
	for _, f := range tr.Flags {
		if strings.Contains(f, substr) {
			return true
		}
	}
	return false
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// generateServices writes restore input in kube-proxy's format for n
// services with eps endpoints each: a KUBE-SERVICES rule per service, an SVC
// chain with the masquerade rule and eps-1 statistic rules, SEP chains with
// the hairpin and DNAT rules, and the fixed chains.
func generateServices(n, eps int) string {
	var b strings.Builder
	b.WriteString("*filter\n:KUBE-NODEPORTS - [0:0]\n:KUBE-SERVICES - [0:0]\n:KUBE-EXTERNAL-SERVICES - [0:0]\n:KUBE-FORWARD - [0:0]\n:KUBE-PROXY-FIREWALL - [0:0]\n")
	b.WriteString("-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n")
	b.WriteString(`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT` + "\n")
	b.WriteString(`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT` + "\nCOMMIT\n")
	b.WriteString("*nat\n:KUBE-NODEPORTS - [0:0]\n:KUBE-SERVICES - [0:0]\n:KUBE-MARK-MASQ - [0:0]\n:KUBE-POSTROUTING - [0:0]\n")
	for i := range n {
		fmt.Fprintf(&b, ":KUBE-SVC-%016X - [0:0]\n", i)
		for e := range eps {
			fmt.Fprintf(&b, ":KUBE-SEP-%012X%04X - [0:0]\n", i, e)
		}
	}
	b.WriteString("-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000\n-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN\n-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000\n")
	b.WriteString(`-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE` + "\n")
	for i := range n {
		ip := serviceIP(i)
		name := fmt.Sprintf("ns%d/svc%d:p80", i, i)
		fmt.Fprintf(&b, "-A KUBE-SERVICES -m comment --comment \"%s cluster IP\" -m tcp -p tcp -d %v --dport 80 -j KUBE-SVC-%016X\n", name, ip, i)
		fmt.Fprintf(&b, "-A KUBE-SVC-%016X -m comment --comment \"%s cluster IP\" -m tcp -p tcp -d %v --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ\n", i, name, ip)
		for e := range eps {
			ep := fmt.Sprintf("10.%d.%d.%d:8080", 64+e, i>>8&0xff, i&0xff)
			stat := ""
			if e < eps-1 {
				stat = fmt.Sprintf(" -m statistic --mode random --probability %0.10f", 1/float64(eps-e))
			}
			fmt.Fprintf(&b, "-A KUBE-SVC-%016X -m comment --comment \"%s -> %s\"%s -j KUBE-SEP-%012X%04X\n", i, name, ep, stat, i, e)
			host, _, _ := strings.Cut(ep, ":")
			fmt.Fprintf(&b, "-A KUBE-SEP-%012X%04X -m comment --comment %s -s %s -j KUBE-MARK-MASQ\n", i, e, name, host)
			fmt.Fprintf(&b, "-A KUBE-SEP-%012X%04X -m comment --comment %s -m tcp -p tcp -j DNAT --to-destination %s\n", i, e, name, ep)
		}
	}
	b.WriteString(`-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS` + "\nCOMMIT\n")
	return b.String()
}

// serviceIP is service i's cluster IP in 10.96.0.0/12.
func serviceIP(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, 96 + byte(i>>16), byte(i >> 8), byte(i)})
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
