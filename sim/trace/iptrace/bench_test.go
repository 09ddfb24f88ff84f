package iptrace

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/trace"
)

// BenchmarkTrace10kServices traces first packets to uniformly random
// services of a generated 10,000-service dump (3 endpoints each, so every
// packet forks into 3 branches) and reports packets per second and the rules
// a linear kernel walk evaluates per packet (main branch and expected over
// branches). "paths" materialises every Step of the main path and of each
// endpoint's path; "no-paths" (Options.SkipPaths) does not.
// "paths-address-filter" is "paths" on the same dump plus 100 services
// without endpoints (REJECT rules by destination in filter KUBE-SERVICES),
// so that filter FORWARD tests addresses and is walked for every branch
// instead of replayed from the stage memo (see memoKey).
func BenchmarkTrace10kServices(b *testing.B) {
	const services = 10000
	text := generateServices(services, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	// The destinations as service numbers (8 KiB, in the L1 cache), so the
	// loop's own memory traffic does not count against the tracer: 4096
	// whole Packets would be 576 KiB.
	svc := make([]uint16, 4096)
	for i := range svc {
		svc[i] = uint16(rng.IntN(services))
	}
	src := netip.MustParseAddr("192.168.7.7")
	for _, mode := range []struct {
		name string
		text string
		skip bool
	}{{"paths", text, false}, {"no-paths", text, true}, {"paths-address-filter", withRejects(text, 100), false}} {
		// One dump and tracer live at a time, as in `svclab trace`: another
		// mode's dump left in the heap slows this one by a fifth.
		var tr *IPTablesTracer
		b.Run(mode.name, func(b *testing.B) {
			if tr == nil {
				tr = mustTracer(b, parseDump(b, mode.text), Options{SkipPaths: mode.skip})
			}
			runtime.GC() // collect the setup's garbage before the timed loop
			var out Trace
			rules, expected := 0, 0.0
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				p := trace.Packet{Src: src, Dst: serviceIP(int(svc[i%len(svc)])), Proto: "tcp", DPort: 80}
				if err := tr.TraceInto(p, &out); err != nil {
					b.Fatal(err)
				}
				rules += out.RulesEvaluated
				expected += out.ExpectedRulesEvaluated
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pkts/s")
			b.ReportMetric(float64(rules)/float64(b.N), "rules/pkt")
			b.ReportMetric(expected/float64(b.N), "expected-rules/pkt")
		})
	}
}

// withRejects adds to a generateServices dump n services without
// endpoints, as kube-proxy writes them: a REJECT rule by destination in
// filter KUBE-SERVICES each.
func withRejects(text string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "-A KUBE-SERVICES -m comment --comment \"ns/gone%d:p80 has no endpoints\" -m tcp -p tcp -d %v --dport 80 -j REJECT --reject-with icmp-port-unreachable\n",
			i, netip.AddrFrom4([4]byte{10, 111, byte(i >> 8), byte(i)}))
	}
	head, tail, _ := strings.Cut(text, "COMMIT\n")
	return head + b.String() + "COMMIT\n" + tail
}

// BenchmarkCompile10kServices measures parsing plus compiling the same dump.
func BenchmarkCompile10kServices(b *testing.B) {
	text := generateServices(10000, 3)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		mustTracer(b, parseDump(b, text), Options{})
	}
}
