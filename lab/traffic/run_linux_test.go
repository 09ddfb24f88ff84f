package traffic_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/traffic"
)

// collect returns a sink that keeps every record.
func collect(records *[]traffic.Record) func(traffic.Record) {
	return func(r traffic.Record) { *records = append(*records, r) }
}

// checkRecords checks that records cover seq 0..n-1 once each, succeeded,
// and have positive latencies.
func checkRecords(t *testing.T, records []traffic.Record, n int) {
	t.Helper()
	if len(records) != n {
		t.Fatalf("got %d records, want %d", len(records), n)
	}
	seen := make([]bool, n)
	for _, r := range records {
		if r.Seq < 0 || r.Seq >= n || seen[r.Seq] {
			t.Fatalf("bad or repeated seq %d", r.Seq)
		}
		seen[r.Seq] = true
		if r.Err != "" || r.Connect <= 0 || r.Total < r.Connect || r.Start.IsZero() {
			t.Fatalf("record %+v: want no error, Connect > 0, Total >= Connect", r)
		}
	}
}

func TestModesAgainstPodServers(t *testing.T) {
	f := labtest.NewVethPair(t)
	second := netip.MustParseAddr("10.250.0.3")
	labtest.IP(t, f.Server, "addr", "add", second.String()+"/24", "dev", "veth-s")
	targets := map[string]netip.AddrPort{
		"pod-a": netip.AddrPortFrom(labtest.ServerIP, 8080),
		"pod-b": netip.AddrPortFrom(second, 8080),
	}
	tests := []struct {
		name           string
		pod            string
		spec           traffic.Spec
		wantRequests   int
		wantServerAcc  uint64
		wantServerReqs uint64
	}{
		{"connect", "pod-a", traffic.Spec{Connections: 40, Concurrency: 4, Mode: traffic.ModeConnect}, 0, 40, 0},
		{"http", "pod-a", traffic.Spec{Connections: 30, Concurrency: 3, Mode: traffic.ModeHTTP}, 30, 30, 30},
		{"http other pod", "pod-b", traffic.Spec{Connections: 20, Concurrency: 2, Mode: traffic.ModeHTTP}, 20, 20, 20},
		{"keepalive reuses connections", "pod-b",
			traffic.Spec{Connections: 4, Concurrency: 2, Mode: traffic.ModeKeepAlive, RequestsPerConn: 50}, 200, 4, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serve(t, f, tt.pod, targets[tt.pod])
			spec := tt.spec
			spec.Netns, spec.Target = f.Client, targets[tt.pod]
			var records []traffic.Record
			sum, err := traffic.Run(context.Background(), spec, collect(&records))
			if err != nil {
				t.Fatalf("run: %v (summary %+v)", err, sum)
			}
			checkRecords(t, records, spec.Connections)
			if sum.Connections != spec.Connections || sum.Errors != 0 || sum.Requests != tt.wantRequests || sum.ConnPerSec <= 0 {
				t.Fatalf("summary %+v: want %d connections, 0 errors, %d requests", sum, spec.Connections, tt.wantRequests)
			}
			if spec.Mode != traffic.ModeConnect && (sum.PodCounts[tt.pod] != spec.Connections || len(sum.PodCounts) != 1) {
				t.Fatalf("pod counts %v, want only %s: %d", sum.PodCounts, tt.pod, spec.Connections)
			}
			want := podserverStats(tt.wantServerAcc, tt.wantServerReqs)
			waitFor(t, "server counts", func() bool { return srv.Stats() == want })
		})
	}
}

func TestRateLimitSpreadsConnections(t *testing.T) {
	f := labtest.NewVethPair(t)
	target := netip.AddrPortFrom(labtest.ServerIP, 8080)
	serve(t, f, "pod-a", target)
	spec := traffic.Spec{Netns: f.Client, Target: target, Connections: 200, Concurrency: 4, Rate: 1000, Mode: traffic.ModeConnect}
	sum, err := traffic.Run(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 200 connections at 1000/s take ~199 ms; only a lower bound is safe.
	if sum.Elapsed < 150*time.Millisecond || sum.Connections != 200 {
		t.Fatalf("200 connections at 1000/s took %v (summary %+v), want >= 150ms", sum.Elapsed, sum)
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	f := labtest.NewVethPair(t)
	answering := netip.AddrPortFrom(labtest.ServerIP, 8080)
	silent := netip.AddrPortFrom(labtest.ServerIP, 8081)
	serve(t, f, "pod-a", answering)
	silentListener(t, f, silent)
	tests := []struct {
		name string
		spec traffic.Spec
	}{
		{"while pacing", traffic.Spec{Target: answering, Rate: 500, Mode: traffic.ModeHTTP}},
		{"while a read blocks", traffic.Spec{Target: silent, Mode: traffic.ModeHTTP, Timeout: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			spec.Netns, spec.Connections, spec.Concurrency = f.Client, 1_000_000, 2
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			began := time.Now()
			sum, err := traffic.Run(ctx, spec, nil)
			if took := time.Since(began); took > 2*time.Second {
				t.Fatalf("Run took %v after a 100ms deadline", took)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want the context's error", err)
			}
			if sum.Errors != 0 || sum.Connections >= spec.Connections {
				t.Fatalf("summary %+v: want no errors and a partial run", sum)
			}
		})
	}
}

func TestFailuresAreCounted(t *testing.T) {
	f := labtest.NewVethPair(t)
	closedPort := netip.AddrPortFrom(labtest.ServerIP, 9)
	spec := traffic.Spec{Netns: f.Client, Target: closedPort, Connections: 5, Mode: traffic.ModeConnect}
	var records []traffic.Record
	sum, err := traffic.Run(context.Background(), spec, collect(&records))
	if err == nil || !strings.Contains(err.Error(), "all 5 connections") {
		t.Fatalf("err = %v, want all connections failed", err)
	}
	if sum.Errors != 5 || len(sum.FirstErrors) == 0 || !strings.Contains(sum.FirstErrors[0], "refused") {
		t.Fatalf("summary %+v: want 5 refused connections", sum)
	}
	if len(records) != 5 || records[0].Err == "" {
		t.Fatalf("records %+v: want 5 failed records", records)
	}
}

func TestMissingNetnsFails(t *testing.T) {
	spec := traffic.Spec{Netns: "svl-t-missing", Target: netip.MustParseAddrPort("10.250.0.2:80"), Connections: 1, Mode: traffic.ModeConnect}
	if _, err := traffic.Run(context.Background(), spec, nil); err == nil || !strings.Contains(err.Error(), "svl-t-missing") {
		t.Fatalf("err = %v, want an error naming the netns", err)
	}
}

// TestProbeRunsOnItsCPU checks that a pinned probe makes every connect on
// the CPU it names: Target runs on the probe's thread, so it reads the CPU
// each connect is made from.
func TestProbeRunsOnItsCPU(t *testing.T) {
	f := labtest.NewVethPair(t)
	serverListener(t, f, netip.AddrPortFrom(labtest.ServerIP, 8080))
	allowed, err := traffic.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	for _, cpu := range allowed {
		seen := map[int]int{}
		addr := netip.AddrPortFrom(labtest.ServerIP, 8080)
		res, err := traffic.Probe(context.Background(), traffic.ProbeSpec{Netns: f.Client, Count: 50, Warmup: 5, CPU: &cpu,
			Target: func(int) netip.AddrPort { seen[currentCPU(t)]++; return addr }})
		if err != nil {
			t.Fatalf("probe pinned to CPU %d: %v", cpu, err)
		}
		if len(res.Latencies) != 50 || len(seen) != 1 || seen[cpu] != 55 {
			t.Errorf("probe pinned to CPU %d: %d latencies, connects made on CPUs %v", cpu, len(res.Latencies), seen)
		}
	}
}

// currentCPU is the CPU the calling thread runs on (getcpu(2)).
func currentCPU(t *testing.T) int {
	var cpu uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); errno != 0 {
		t.Fatalf("getcpu: %v", errno)
	}
	return int(cpu)
}
