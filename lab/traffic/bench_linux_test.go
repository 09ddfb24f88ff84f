package traffic_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/traffic"
)

// BenchmarkNewConnections opens b.N new connections per run from the client
// namespace straight to one pod server across the veth fixture (no DNAT)
// and reports conn/s and the median and p99 connect latency. The project
// target is >= 5,000 new connections per second.
func BenchmarkNewConnections(b *testing.B) {
	f := labtest.NewVethPair(b)
	target := netip.AddrPortFrom(labtest.ServerIP, 8080)
	serve(b, f, "pod-a", target)
	for _, mode := range []traffic.Mode{traffic.ModeConnect, traffic.ModeHTTP} {
		for _, concurrency := range []int{4, 8} {
			b.Run(fmt.Sprintf("%s/c%d", mode, concurrency), func(b *testing.B) {
				spec := traffic.Spec{Netns: f.Client, Target: target, Connections: b.N, Concurrency: concurrency, Mode: mode}
				connects := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				sum, err := traffic.Run(context.Background(), spec, func(r traffic.Record) { connects = append(connects, r.Connect) })
				b.StopTimer()
				if err != nil || sum.Errors > 0 {
					b.Fatalf("run: %v, %d errors, first %v", err, sum.Errors, sum.FirstErrors)
				}
				slices.Sort(connects)
				b.ReportMetric(sum.ConnPerSec, "conn/s")
				b.ReportMetric(float64(connects[len(connects)/2].Microseconds()), "connect-p50-µs")
				b.ReportMetric(float64(connects[len(connects)*99/100].Microseconds()), "connect-p99-µs")
			})
		}
	}
}
