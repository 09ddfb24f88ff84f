package apply

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// ipvsGuestSideEnv tells the test binary, booted in a guest, to run the
// guest half of TestIPVSInGuest.
const ipvsGuestSideEnv = "SVCLAB_TEST_IPVS_GUEST_SIDE"

// The test binary is its own guest init, as the svclab binary is.
func init() { uml.InitIfGuest(os.Args[1:]) }

// TestIPVSInGuest boots a user-mode-linux guest that runs
// TestIPVSGuestSide: the real IPVS dataplane, end to end.
func TestIPVSInGuest(t *testing.T) {
	labtest.RequireRoot(t)
	info, err := uml.Available()
	labtest.Require(t, err)
	if !info.HasIPVS() {
		t.Fatalf("user-mode-linux %s has no IPVS", info.Version)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	res, err := uml.Run(context.Background(), uml.Spec{
		Binary: self, Args: []string{"-test.run=^TestIPVSGuestSide$", "-test.v", "-test.count=1"},
		Env: []string{ipvsGuestSideEnv + "=1"}, Stdout: &stdout, Stderr: &stderr, Timeout: 2 * time.Minute,
	})
	t.Logf("guest %s (boot %v, run %v):\n%s%s", res.GuestKernel, res.Boot, res.Duration, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "--- PASS: TestIPVSGuestSide") {
		t.Fatal("the guest half did not pass")
	}
}

// TestIPVSGuestSide runs inside the guest: a node, a client and two pods;
// one service synced with each scheduler; connections through it counted
// by the pods and by IPVS.
func TestIPVSGuestSide(t *testing.T) {
	if os.Getenv(ipvsGuestSideEnv) == "" {
		t.Skip("runs inside the user-mode-linux guest, started by TestIPVSInGuest")
	}
	lab, err := topo.Build(t.Context(), topo.Spec{Prefix: topo.NewPrefix(), Pods: []topo.Pod{
		{Name: "a", IP: netip.MustParseAddr("10.244.0.2")}, {Name: "b", IP: netip.MustParseAddr("10.244.0.3")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	servers := &podserver.Group{}
	defer servers.Close()
	for _, p := range lab.Pods {
		if _, err := servers.Serve(p.Netns, p.Name, netip.MustParseAddrPort("0.0.0.0:8080")); err != nil {
			t.Fatal(err)
		}
	}
	m := ipvsTestModel(twoEndpointService("web", "10.96.0.10", "10.244.0.2", "10.244.0.3"))
	for _, sched := range []string{"rr", "wrr", "lc", "sh", "mh"} {
		t.Run(sched, func(t *testing.T) { checkScheduler(t, lab, m, sched) })
	}
	t.Run("incremental", func(t *testing.T) { checkIncremental(t, lab) })
}

// checkIncremental syncs a service with pod a only, adds pod b with
// IncrementalSync, and checks that rr then splits evenly.
func checkIncremental(t *testing.T, lab *topo.Topology) {
	dp, err := NewIPVS(lab.NodeNetns, ipvs.Options{Scheduler: "rr"})
	if err != nil {
		t.Fatal(err)
	}
	defer dp.Reset(t.Context())
	m := ipvsTestModel(twoEndpointService("web", "10.96.0.10", "10.244.0.2"))
	if _, err := dp.FullSync(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	inc, err := dp.Apply(t.Context(), m, Change{Service: 0, Endpoint: model.Endpoint{IP: netip.MustParseAddr("10.244.0.3"), Ready: true, Node: "node-1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("incremental sync %v, %+v", inc.Duration, inc.Payload)
	byPod := map[string]int{}
	for range 10 {
		pod, err := fetchPodName(lab.ClientNetns, "10.96.0.10:80")
		if err != nil {
			t.Fatal(err)
		}
		byPod[pod]++
	}
	if byPod["a"] != 5 || byPod["b"] != 5 {
		t.Errorf("after adding pod b: split %v, want 5 each", byPod)
	}
}

// checkScheduler syncs m with sched, makes 20 connections, and checks
// the pods' view against IPVS's counters (rr and wrr: exactly 10 each).
func checkScheduler(t *testing.T, lab *topo.Topology, m *model.Model, sched string) {
	dp, err := NewIPVS(lab.NodeNetns, ipvs.Options{Scheduler: sched})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := dp.Reset(t.Context()); err != nil {
			t.Error(err)
		}
	}()
	sync, err := dp.FullSync(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: full sync %v (%s)", sched, sync.Duration, dp.Version())
	if changes := resyncChanges(t, dp.(*IPVS), m); changes != 0 {
		t.Errorf("a second sync of the same model made %d IPVS changes, want 0", changes)
	}
	const conns = 20
	vip := netip.MustParseAddrPort("10.96.0.10:80")
	before := realServerConnections(t, dp.(*IPVS), vip)
	byPod := map[string]uint64{}
	for i := range conns {
		fetch := fetchPodName
		if i == 0 && sched == "rr" {
			fetch = curlPodName // once, as a person would check it
		}
		pod, err := fetch(lab.ClientNetns, vip.String())
		if err != nil {
			t.Fatal(err)
		}
		byPod[pod]++
	}
	// The kernel folds its per-CPU counters every 2 s (its rate
	// estimator), and keeps them for a real server re-added soon after
	// removal: compare differences, once they add up.
	var byAddr map[string]uint64
	for deadline := time.Now().Add(6 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		after := realServerConnections(t, dp.(*IPVS), vip)
		byAddr = map[string]uint64{"a": after["a"] - before["a"], "b": after["b"] - before["b"]}
		if byAddr["a"]+byAddr["b"] >= conns {
			break
		}
	}
	if byAddr["a"] != byPod["a"] || byAddr["b"] != byPod["b"] || byPod["a"]+byPod["b"] != conns {
		t.Errorf("pods saw %v, IPVS counted %v; want the same %d connections", byPod, byAddr, conns)
	}
	if (sched == "rr" || sched == "wrr") && (byPod["a"] != conns/2 || byPod["b"] != conns/2) {
		t.Errorf("%s split %v, want exactly %d each", sched, byPod, conns/2)
	}
}

// resyncChanges syncs m again and counts the IPVS changes it made.
func resyncChanges(t *testing.T, d *IPVS, m *model.Model) int {
	t.Helper()
	kernelDial, changes := d.dial, 0
	d.dial = func() (ipvsClient, error) {
		c, err := kernelDial()
		return &changeCounter{ipvsClient: c, changes: &changes}, err
	}
	defer func() { d.dial = kernelDial }()
	if _, err := d.FullSync(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	return changes
}

// realServerConnections reads IPVS's connection counter of pods a and b.
func realServerConnections(t *testing.T, d *IPVS, vip netip.AddrPort) map[string]uint64 {
	t.Helper()
	counters, err := d.RealServerCounters(vip, model.TCP)
	if err != nil {
		t.Fatal(err)
	}
	pods := map[string]string{"10.244.0.2": "a", "10.244.0.3": "b"}
	out := map[string]uint64{}
	for _, c := range counters {
		out[pods[c.Addr.Addr().String()]] = c.Connections
	}
	return out
}

// fetchPodName opens a connection from the client namespace, sends one
// HTTP request and returns the pod name the body starts with.
func fetchPodName(clientNetns, addr string) (string, error) {
	var conn net.Conn
	err := netns.Do(clientNetns, func() (err error) {
		conn, err = net.DialTimeout("tcp", addr, 3*time.Second)
		return err
	})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(conn, "GET / HTTP/1.0\r\nHost: svc\r\n\r\n"); err != nil {
		return "", err
	}
	body, err := io.ReadAll(conn)
	if err != nil {
		return "", err
	}
	_, rest, _ := strings.Cut(string(body), "\r\n\r\n")
	line, err := bufio.NewReader(strings.NewReader(rest)).ReadString('\n')
	return strings.TrimSpace(line), err
}

// curlPodName is fetchPodName with curl.
func curlPodName(clientNetns, addr string) (string, error) {
	out, err := netns.Output(clientNetns, nil, "curl", "-sS", "--max-time", "5", "http://"+addr+"/")
	pod, _, _ := strings.Cut(string(out), "\n")
	return pod, err
}

// BenchmarkIPVSFullSyncInGuest boots a guest that runs
// BenchmarkIPVSFullSyncGuestSide and logs its results (the numbers are the
// guest's: UML timings, not host timings). Use -benchtime=1x.
func BenchmarkIPVSFullSyncInGuest(b *testing.B) {
	labtest.RequireRoot(b)
	if _, err := uml.Available(); err != nil {
		b.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	for b.Loop() {
		stdout.Reset()
		_, err := uml.Run(context.Background(), uml.Spec{
			Binary: self, Args: []string{"-test.run=^$", "-test.bench=^BenchmarkIPVSFullSyncGuestSide$", "-test.benchtime=3x"},
			Env: []string{ipvsGuestSideEnv + "=1"}, Stdout: &stdout, Stderr: &stderr, Timeout: 10 * time.Minute,
		})
		if err != nil {
			b.Fatalf("%v\n%s%s", err, &stdout, &stderr)
		}
	}
	b.Logf("in the guest:\n%s", &stdout)
}

// BenchmarkIPVSFullSyncGuestSide runs inside the guest: a full sync of N
// generated services with 2 endpoints each (routed to a sink pod) into a
// fresh node, timed by FullSync itself (sync-s).
func BenchmarkIPVSFullSyncGuestSide(b *testing.B) {
	if os.Getenv(ipvsGuestSideEnv) == "" {
		b.Skip("runs inside the user-mode-linux guest, started by BenchmarkIPVSFullSyncInGuest")
	}
	lab, err := topo.Build(b.Context(), topo.Spec{Prefix: topo.NewPrefix(), SinkPrefixes: []netip.Prefix{model.DefaultEndpointCIDR}})
	if err != nil {
		b.Fatal(err)
	}
	defer lab.Close()
	for _, n := range []int{1000, 5000} {
		gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: 2, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			dp, err := NewIPVS(lab.NodeNetns, ipvs.DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			for b.Loop() {
				if err := dp.Reset(b.Context()); err != nil {
					b.Fatal(err)
				}
				sync, err := dp.FullSync(b.Context(), m)
				if err != nil {
					b.Fatal(err)
				}
				total += sync.Duration
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "sync-s")
			if err := dp.Reset(b.Context()); err != nil {
				b.Fatal(err)
			}
		})
	}
}
