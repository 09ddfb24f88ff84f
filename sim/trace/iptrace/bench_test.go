package iptrace

import (
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"
	"time"
)

// BenchmarkTrace10kServices traces first packets to uniformly random
// services of a generated 10,000-service dump (3 endpoints each, so every
// packet forks into 3 branches) and reports packets per second and the rules
// a linear kernel walk evaluates per packet (main branch and expected over
// branches). "paths" materialises every Step of the main path and of each
// endpoint's path; "no-paths" (Options.SkipPaths) does not.
func BenchmarkTrace10kServices(b *testing.B) {
	const services = 10000
	dump := parseDump(b, generateServices(services, 3))
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
		skip bool
	}{{"paths", false}, {"no-paths", true}} {
		b.Run(mode.name, func(b *testing.B) {
			tr := mustTracer(b, dump, Options{SkipPaths: mode.skip})
			runtime.GC() // collect the setup's garbage before the timed loop
			var out Trace
			rules, expected := 0, 0.0
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				p := Packet{Src: src, Dst: serviceIP(int(svc[i%len(svc)])), Proto: "tcp", DPort: 80}
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

// BenchmarkCompile10kServices measures parsing plus compiling the same dump.
func BenchmarkCompile10kServices(b *testing.B) {
	text := generateServices(10000, 3)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		mustTracer(b, parseDump(b, text), Options{})
	}
}
