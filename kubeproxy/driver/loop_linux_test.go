package driver

import (
	"context"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// loopChild makes the test binary act as `kube-proxy-driver loop` when
// the lab client re-executes it inside a scratch namespace.
const loopChild = "SVCLAB_KP_DRIVER_LOOP_CHILD"

// loopModes are the kernel modes the loop tests run. IPVS needs the UML
// guest. iptables-legacy is left out: its commands take the host-wide
// /run/xtables.lock (one file for every namespace), which other labs on
// the machine hold, and a sync that fails on it loses its network
// programming observations and waits syncPeriod to retry (kube-proxy's
// behaviour, seen here on a shared machine), so the counts would depend on
// the neighbours; TestSyncInNamespace covers legacy.
var loopModes = []struct{ name, mode, variant string }{
	{"iptables-nft", kube.ModeIPTables, "nft"},
	{"nftables", kube.ModeNFTables, ""},
}

// udpService is a ClusterIP UDP service (like statsd) with endpoints at
// ips, port 53 → 5353.
func udpService(ips ...string) *model.Service {
	s := &model.Service{
		Namespace: "ns1", Name: "statsd", Type: model.ClusterIP, ClusterIP: netip.MustParseAddr("10.96.0.10"),
		Ports: []model.Port{{Name: "udp", Protocol: model.UDP, Port: 53, TargetPort: 5353}},
	}
	for _, ip := range ips {
		s.Endpoints = append(s.Endpoints, model.Endpoint{IP: netip.MustParseAddr(ip), Ready: true, Serving: true, Node: "node-1"})
	}
	return s
}

// startLoop runs the driver (this test binary) in loop mode in a scratch
// namespace through the lab client, with s as the only service.
func startLoop(t *testing.T, mode, variant string, s *model.Service, minSync time.Duration) (*kubeproxy.Loop, string) {
	t.Helper()
	ns := labtest.ScratchNetns(t)
	req, err := kube.NewRequest(mode, render.Config{}, &model.Model{Cluster: model.DefaultCluster(), Services: model.Slice{*s}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(loopChild, "1")
	// A failed sync (e.g. iptables-legacy's /run/xtables.lock held by
	// another lab on this machine) is retried after syncPeriod, kube-proxy's
	// behaviour: a short one keeps the tests' waits short.
	lr := &kube.LoopRequest{Request: *req, MinSyncPeriod: metav1.Duration{Duration: minSync}, SyncPeriod: metav1.Duration{Duration: 2 * time.Second}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := kubeproxy.StartLoop(ctx, kubeproxy.LoopOptions{NS: ns, Bin: os.Args[0], IPTables: variant}, lr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Kill() })
	return l, ns
}

// sliceOp is the update of s's EndpointSlice to its current endpoints,
// stamped with the trigger time now.
func sliceOp(s *model.Service) kube.Op {
	es := kube.EndpointSlice(s)
	kube.StampTriggerTime(es, time.Now())
	return kube.Op{Action: kube.Update, Object: kube.Raw(es)}
}

// waitProgrammed waits until the reported syncs have made n network
// programming observations, and returns the syncs.
func waitProgrammed(t *testing.T, l *kubeproxy.Loop, n uint64) []kube.LoopSync {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for want := 1; ; want++ {
		syncs, err := l.WaitSyncs(ctx, want)
		if err != nil {
			t.Fatalf("waiting for %d programmed changes: %v (syncs %+v)", n, err, syncs)
		}
		var got uint64
		for _, s := range syncs {
			got += s.Programmed
		}
		if got >= n {
			return syncs
		}
		want = len(syncs)
	}
}

// TestLoopSyncsEvents: endpoint changes sent as events are synced by
// kube-proxy's own loop (a full first sync, then partial ones), reach the
// kernel, and each stamped EndpointSlice change is observed once in
// kube-proxy's network programming histogram.
func TestLoopSyncsEvents(t *testing.T) {
	for _, tc := range loopModes {
		t.Run(tc.name, func(t *testing.T) {
			s := udpService("10.0.3.2")
			l, ns := startLoop(t, tc.mode, tc.variant, s, 50*time.Millisecond)
			for _, ip := range []string{"10.0.3.3", "10.0.3.4", "10.0.3.5"} {
				s = udpService(append(endpointIPs(s), ip)...)
				if err := l.Send(sliceOp(s)); err != nil {
					t.Fatal(err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			syncs := waitProgrammed(t, l, 3)
			final, err := l.Stop(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			fullReports := 0
			for i, sy := range syncs {
				// kube-proxy syncs fully first and after a failed sync.
				wantFull := i == 0 || syncs[i-1].Error != ""
				if sy.Index != i || sy.DurationNS <= 0 || sy.Start.IsZero() || wantFull != sy.Full {
					t.Errorf("sync %d: %+v; want index %d, a duration and start, full = %v", i, sy, i, wantFull)
				}
				if sy.Error != "" {
					t.Logf("sync %d failed (kube-proxy retries): %s", i, sy.Error)
				}
				if sy.Full {
					fullReports++
				}
			}
			if last := syncs[len(syncs)-1]; last.Error != "" {
				t.Errorf("last sync failed: %s", last.Error)
			}
			h, ok := final.Histogram(kube.MetricNetworkProgramming)
			if !ok || h.Count != 3 || h.Sum <= 0 {
				t.Errorf("final %s = %+v (%v); want 3 observations", kube.MetricNetworkProgramming, h, ok)
			}
			if !final.Final || final.Syncs != len(syncs) {
				t.Errorf("final snapshot: final %v, %d syncs; want final after %d syncs", final.Final, final.Syncs, len(syncs))
			}
			full, _ := final.Histogram(kube.MetricFullSyncDuration)
			part, _ := final.Histogram(kube.MetricPartialSyncDuration)
			if full.Count != uint64(fullReports) || full.Count+part.Count != uint64(len(syncs)) {
				t.Errorf("kube-proxy counted %d full and %d partial syncs; the driver reported %d full of %d", full.Count, part.Count, fullReports, len(syncs))
			}
			t.Logf("%s: %d syncs; cold start %v (first sync %v); programming p50 %.2fs sum %.3fs over %d",
				tc.name, len(syncs), l.ColdStart, syncs[0].Duration(), h.Quantile(0.5), h.Sum, h.Count)
			assertKernelHas(t, tc.mode, tc.variant, ns, "10.0.3.5")
		})
	}
}

// TestLoopMinSyncPeriod: kube-proxy's runner leaves at least
// minSyncPeriod between the end of one sync and the start of the next, so
// ten events 100 ms apart take fewer than ten syncs.
func TestLoopMinSyncPeriod(t *testing.T) {
	const minSync = time.Second
	s := udpService("10.0.3.2")
	l, _ := startLoop(t, kube.ModeNFTables, "", s, minSync)
	ips := endpointIPs(s)
	for i := range 10 {
		ips = append(ips, netip.AddrFrom4([4]byte{10, 0, 4, byte(i + 1)}).String())
		if err := l.Send(sliceOp(udpService(ips...))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	syncs := waitProgrammed(t, l, 10)
	if _, err := l.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	runner := syncs[1:]
	if len(runner) >= 10 {
		t.Errorf("%d runner syncs for 10 events 100 ms apart with minSyncPeriod %v", len(runner), minSync)
	}
	for i := 1; i < len(runner); i++ {
		prevEnd := runner[i-1].Start.Add(runner[i-1].Duration())
		if gap := runner[i].Start.Sub(prevEnd); gap < minSync {
			t.Errorf("sync %d started %v after sync %d ended; minSyncPeriod is %v", runner[i].Index, gap, runner[i-1].Index, minSync)
		}
	}
	t.Logf("10 events over 1 s: %d runner syncs", len(runner))
}

func endpointIPs(s *model.Service) []string {
	var ips []string
	for _, e := range s.Endpoints {
		ips = append(ips, e.IP.String())
	}
	return ips
}

// assertKernelHas checks that the namespace's rules for mode name ip.
func assertKernelHas(t *testing.T, mode, variant, ns, ip string) {
	t.Helper()
	argv := []string{"nft", "list", "table", "ip", "kube-proxy"}
	if mode == kube.ModeIPTables {
		argv = []string{"iptables-" + variant + "-save", "-t", "nat"}
	}
	out, err := netns.Output(ns, nil, argv...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), ip) {
		t.Errorf("%s in %s lacks %s:\n%s", strings.Join(argv, " "), ns, ip, out)
	}
}

// driverRelease is the version table's row of the kube-proxy this test
// binary is built with.
func driverRelease(t *testing.T) render.KubeProxyRelease {
	t.Helper()
	v, err := render.ParseKubeProxyVersion(Version())
	if err != nil {
		t.Fatal(err)
	}
	return v.Release()
}

// TestLoopConntrackScaleToZero is kubernetes#139628 on kube-proxy's own
// code and the kernel: a one-way UDP flow DNAT-ed to the only endpoint of a
// Service that is then scaled to zero keeps its conntrack entry with the
// releases whose reconciler skips Services without endpoints, and loses it
// at the next sync with those that clean them (the version table's
// ConntrackCleansServicesWithoutEndpoints, v1.37 with #139629). As a
// control, every release removes such an entry when the Service has
// another serving endpoint.
func TestLoopConntrackScaleToZero(t *testing.T) {
	labtest.RequireBinary(t, "conntrack")
	cleans := driverRelease(t).ConntrackCleansServicesWithoutEndpoints
	for _, tc := range loopModes {
		t.Run(tc.name, func(t *testing.T) {
			l, ns := startLoop(t, tc.mode, tc.variant, udpService("10.0.3.2"), 10*time.Millisecond)
			insertUDPFlow(t, ns, "10.0.3.2")
			if err := l.Send(sliceOp(udpService())); err != nil {
				t.Fatal(err)
			}
			waitProgrammed(t, l, 1)
			kept := hasUDPFlow(t, ns, "10.0.3.2")
			if kept == cleans {
				t.Errorf("kube-proxy %s: flow to the deleted endpoint kept = %v after the scale to zero; the version table says the reconciler cleans Services without endpoints = %v",
					Version(), kept, cleans)
			}
			if !kept {
				insertUDPFlow(t, ns, "10.0.3.2")
			}
			if err := l.Send(sliceOp(udpService("10.0.3.3"))); err != nil {
				t.Fatal(err)
			}
			waitProgrammed(t, l, 2)
			if hasUDPFlow(t, ns, "10.0.3.2") {
				t.Errorf("kube-proxy %s: flow to a removed endpoint kept while the Service has another serving endpoint", Version())
			}
			final, err := l.Stop(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// kube-proxy's own count: the control's removal, and the
			// scale to zero's where the reconciler cleans it.
			want := 1.0
			if cleans {
				want = 2
			}
			if deleted, ok := final.Value(kube.MetricConntrackDeleted); !ok || deleted != want {
				t.Errorf("%s = %v (%v); want %v", kube.MetricConntrackDeleted, deleted, ok, want)
			}
			t.Logf("kube-proxy %s %s: flow kept after the scale to zero: %v", Version(), tc.name, kept)
		})
	}
}

// udpClient, udpVIP: the one-way sender's flow to udpService's ClusterIP.
const udpClient, udpVIP = "10.1.0.5", "10.96.0.10"

// insertUDPFlow makes the conntrack entry a statsd-like sender leaves:
// udpClient:4000 → udpVIP:53, DNAT-ed to endpoint:5353, never answered.
func insertUDPFlow(t *testing.T, ns, endpoint string) {
	t.Helper()
	if _, err := netns.Output(ns, nil, "conntrack", "-I", "-p", "udp", "-s", udpClient, "-d", udpVIP, "--sport", "4000", "--dport", "53",
		"-r", endpoint, "-q", udpClient, "--reply-port-src", "5353", "--reply-port-dst", "4000", "-t", "300"); err != nil {
		t.Fatal(err)
	}
	if !hasUDPFlow(t, ns, endpoint) {
		t.Fatalf("conntrack -I made no entry to %s in %s", endpoint, ns)
	}
}

// hasUDPFlow reports whether the namespace holds a UDP entry to udpVIP
// DNAT-ed to endpoint.
func hasUDPFlow(t *testing.T, ns, endpoint string) bool {
	t.Helper()
	out, err := netns.Output(ns, nil, "conntrack", "-L", "-p", "udp", "-d", udpVIP)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(out), "src="+endpoint+" ")
}
