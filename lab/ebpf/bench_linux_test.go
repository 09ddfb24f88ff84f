package ebpf

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/model"
)

// benchSizes are the service counts measured (the synthetic services plus
// the target in the middle).
var benchSizes = []int{1, 1000, 10000, 100000}

// fillers is how many synthetic services make n services with the target.
func fillers(n int) int { return n - 1 }

// probeConnects is how many blocking connects one probe measures, after
// probeWarmup unmeasured ones.
const probeConnects, probeWarmup = 1000, 50

// BenchmarkConnect measures the blocking connect latency from the client
// pod to a ClusterIP with n services loaded, and straight to a pod
// ("direct", through the same veth with the programs attached).
// Metrics: median-µs and p99-µs over every connect of the run.
//
//	go test -run '^$' -bench BenchmarkConnect -benchtime 5x ./lab/ebpf/
func BenchmarkConnect(b *testing.B) {
	for _, dp := range []string{"ebpf", "ebpf-sock"} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("dp=%s/services=%d", dp, n), func(b *testing.B) {
				l := newLab(b, 2, false)
				d := newDataplane(b, l, dp)
				svc := webService("target", netip.MustParseAddr("10.96.0.10"), 0, 1)
				if _, err := d.Program(context.Background(), scaleModel(b, fillers(n), svc)); err != nil {
					b.Fatal(err)
				}
				vip := netip.AddrPortFrom(svc.ClusterIP, 80)
				direct := netip.AddrPortFrom(podIP(0), 8080)
				var viaVIP, straight []time.Duration
				eintr := 0
				for b.Loop() {
					viaVIP = append(viaVIP, probe(b, l, vip, &eintr)...)
					straight = append(straight, probe(b, l, direct, &eintr)...)
				}
				b.ReportMetric(float64(eintr), "eintr")
				reportLatency(b, "", viaVIP)
				reportLatency(b, "direct-", straight)
			})
		}
	}
}

// probe makes probeConnects blocking connects to target after a warm-up.
// Connects interrupted by a signal are added to eintr.
func probe(b *testing.B, l *lab, target netip.AddrPort, eintr *int) []time.Duration {
	res, err := traffic.Probe(context.Background(), traffic.ProbeSpec{Netns: l.topo.ClientNetns, Count: probeConnects, Warmup: probeWarmup,
		Timeout: 2 * time.Second, Target: func(int) netip.AddrPort { return target }})
	if err != nil {
		b.Fatal(err)
	}
	// traffic.Probe's connect(2) does not retry EINTR (the Go runtime's
	// preemption signal can interrupt it); such a connect is not a dataplane
	// failure, so it is counted apart.
	if res.Errors > 0 && !strings.Contains(res.FirstErr, "interrupted system call") {
		b.Fatalf("%d connects to %s failed, first: %s", res.Errors, target, res.FirstErr)
	}
	*eintr += res.Errors
	return res.Latencies
}

func reportLatency(b *testing.B, prefix string, l []time.Duration) {
	slices.Sort(l)
	us := func(q float64) float64 { return float64(l[int(q*float64(len(l)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(us(0.5), prefix+"median-µs")
	b.ReportMetric(us(0.99), prefix+"p99-µs")
}

// BenchmarkSync measures a full load of n services (batch map updates into
// emptied maps) and one change (an endpoint added to the middle service)
// at n. Metrics: load-ms and change-µs, the dataplane's own timing of its
// map writes (Sync.Duration), averaged over the iterations.
//
//	go test -run '^$' -bench BenchmarkSync -benchtime 5x ./lab/ebpf/
func BenchmarkSync(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			l := newLab(b, 2, false)
			d := newDataplane(b, l, "ebpf")
			svc := webService("target", netip.MustParseAddr("10.96.0.10"), 0, 1)
			m := scaleModel(b, fillers(n), svc)
			mid := model.IndexOf(m.Services, "target")
			ctx := context.Background()
			var load, change time.Duration
			i := 0
			for b.Loop() {
				s, err := d.FullSync(ctx, m)
				if err != nil {
					b.Fatal(err)
				}
				load += s.Duration
				ep := model.Endpoint{IP: netip.AddrFrom4([4]byte{10, 244, 1, byte(i)}), Ready: true}
				c, err := d.Apply(ctx, m, Change{Service: mid, Endpoint: ep})
				if err != nil {
					b.Fatal(err)
				}
				change += c.Duration
				i++
			}
			b.ReportMetric(float64(load)/1e6/float64(i), "load-ms")
			b.ReportMetric(float64(change)/1e3/float64(i), "change-µs")
		})
	}
}

// BenchmarkProgramCost measures the programs' own CPU time per run with the
// kernel's BPF run-time statistics on (only during this benchmark), while
// the client makes blocking connects to the ClusterIP at n services.
// Metrics: <program>-ns/run, and runs/connect (packets per connection the
// program saw: SYN, ACK, RST for ingress; SYN-ACK for egress).
//
//	go test -run '^$' -bench BenchmarkProgramCost -benchtime 5x ./lab/ebpf/
func BenchmarkProgramCost(b *testing.B) {
	for _, dp := range []string{"ebpf", "ebpf-sock"} {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("dp=%s/services=%d", dp, n), func(b *testing.B) {
				l := newLab(b, 2, false)
				d := newDataplane(b, l, dp)
				svc := webService("target", netip.MustParseAddr("10.96.0.10"), 0, 1)
				if _, err := d.Program(context.Background(), scaleModel(b, fillers(n), svc)); err != nil {
					b.Fatal(err)
				}
				stats, err := EnableRunTimeStats()
				if err != nil {
					b.Skip(err)
				}
				defer stats.Close()
				ps := d.(interface {
					ProgramStats() (map[string]ProgramStat, error)
				})
				before, err := ps.ProgramStats()
				if err != nil {
					b.Fatal(err)
				}
				eintr, connects := 0, 0
				for b.Loop() {
					connects += probeWarmup + len(probe(b, l, netip.AddrPortFrom(svc.ClusterIP, 80), &eintr))
				}
				after, err := ps.ProgramStats()
				if err != nil {
					b.Fatal(err)
				}
				for name, s := range after {
					delta := s.Sub(before[name])
					b.ReportMetric(float64(delta.PerRun().Nanoseconds()), name+"-ns/run")
					b.ReportMetric(float64(delta.Runs)/float64(connects), name+"-runs/connect")
				}
			})
		}
	}
}
