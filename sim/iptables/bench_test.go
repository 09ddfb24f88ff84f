package iptables

import (
	"fmt"
	"strings"
	"testing"
)

// generateDump writes kube-proxy-style restore input for n services with
// three endpoints each (about 10 rules per service).
func generateDump(n int) string {
	var b strings.Builder
	b.WriteString("*nat\n:KUBE-SERVICES - [0:0]\n:KUBE-MARK-MASQ - [0:0]\n")
	for i := range n {
		fmt.Fprintf(&b, ":KUBE-SVC-%016X - [0:0]\n", i)
		for e := range 3 {
			fmt.Fprintf(&b, ":KUBE-SEP-%012X%04X - [0:0]\n", i, e)
		}
	}
	b.WriteString("-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000\n")
	for i := range n {
		ip := fmt.Sprintf("10.%d.%d.%d", 96+i>>16, i>>8&0xff, i&0xff)
		fmt.Fprintf(&b, "-A KUBE-SERVICES -m comment --comment \"ns%d/svc%d:p80 cluster IP\" -m tcp -p tcp -d %s --dport 80 -j KUBE-SVC-%016X\n", i, i, ip, i)
		fmt.Fprintf(&b, "-A KUBE-SVC-%016X -m comment --comment \"ns%d/svc%d:p80 cluster IP\" -m tcp -p tcp -d %s --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ\n", i, i, i, ip)
		for e, p := range []string{" -m statistic --mode random --probability 0.3333333333", " -m statistic --mode random --probability 0.5000000000", ""} {
			fmt.Fprintf(&b, "-A KUBE-SVC-%016X -m comment --comment \"ns%d/svc%d:p80 -> 10.%d.%d.%d:80\"%s -j KUBE-SEP-%012X%04X\n", i, i, i, 64+e, i>>8&0xff, i&0xff, p, i, e)
			fmt.Fprintf(&b, "-A KUBE-SEP-%012X%04X -m comment --comment ns%d/svc%d:p80 -s 10.%d.%d.%d -j KUBE-MARK-MASQ\n", i, e, i, i, 64+e, i>>8&0xff, i&0xff)
			fmt.Fprintf(&b, "-A KUBE-SEP-%012X%04X -m comment --comment ns%d/svc%d:p80 -m tcp -p tcp -j DNAT --to-destination 10.%d.%d.%d:80\n", i, e, i, i, 64+e, i>>8&0xff, i&0xff)
		}
	}
	b.WriteString("COMMIT\n")
	return b.String()
}

// BenchmarkParse10kServices parses a 10,000-service dump (110,000 rules).
func BenchmarkParse10kServices(b *testing.B) {
	text := generateDump(10000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		d, err := ParseString(text)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(d.Table("nat").RuleCount()), "rules")
		}
	}
}

// BenchmarkNormalizeDump10kServices normalises the same dump.
func BenchmarkNormalizeDump10kServices(b *testing.B) {
	d, err := ParseString(generateDump(10000))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		_ = NormalizeDump(d)
	}
}
