package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/sim/results"
)

// chaosKind is one kind of chaos trial: what is started and how long it
// may take before the signal lands.
type chaosKind struct {
	name     string
	args     func(dir string) []string // svclab arguments; nil for up
	maxDelay time.Duration
	up       []string // for up: the scenario and flags
}

const chaosSweep = `name: chaos-sweep
sweep:
  services: [1, 300]
  dataplanes: [iptables-legacy, nftables, ebpf, ebpf-sock]
  positions: [last]
  endpointsPerService: 1
  connections: 100
  warmup: 10
  repetitions: 2
  throughputConnections: 200
  seed: 3
`

// chaosBuild is one service whose 2,000 endpoints become 2,000 pod
// namespaces: the signal lands while the lab is being built.
func chaosBuild() string {
	ips := make([]string, 2000)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.244.%d.%d", 1+i/250, 1+i%250)
	}
	return "name: chaos-build\nservices:\n  - namespace: chaos\n    name: wide\n    clusterIP: 10.96.0.20\n" +
		"    ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]\n    endpoints: [" + strings.Join(ips, ", ") + "]\n" +
		"fairness:\n  dataplanes: [iptables-nft]\n  connections: 200\n"
}

func chaosKinds(t *testing.T) []chaosKind {
	dir := t.TempDir()
	sweep, build := filepath.Join(dir, "chaos-sweep.yaml"), filepath.Join(dir, "chaos-build.yaml")
	if err := os.WriteFile(sweep, []byte(chaosSweep), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(build, []byte(chaosBuild()), 0o644); err != nil {
		t.Fatal(err)
	}
	return []chaosKind{
		{"fairness", func(out string) []string {
			return []string{"run", "split-2", "--dataplane", "iptables-nft,nftables,ebpf,ebpf-sock", "--connections", "3000", "--out", out}
		}, 3 * time.Second, nil},
		{"sweep", func(out string) []string { return []string{"run", sweep, "--out", out} }, 4 * time.Second, nil},
		{"ipvs", func(out string) []string { return []string{"run", "ipvs-rr", "--connections", "300", "--out", out} }, 5 * time.Second, nil},
		{"build", func(out string) []string { return []string{"run", build, "--out", out} }, 2500 * time.Millisecond, nil},
		{"up", nil, 2 * time.Second, []string{"split-2"}},
		{"verify-trace", func(string) []string {
			return []string{"verify-trace", "--packets", "100000", "../../lab/verifytrace/testdata/kube-proxy-nftables.nft", "../../lab/verifytrace/testdata/kube-proxy-iptables-nft.rules"}
		}, 3 * time.Second, nil},
		{"up-kube-proxy", nil, 2 * time.Second, []string{"split-2", "--engine", "kube-proxy", "--dataplane", "iptables-legacy"}},
		// A timeline: traffic generators, UDP sinks in every pod, conntrack
		// entries in the node namespace, the scale to zero at 5 s.
		{"timeline", func(out string) []string { return []string{"run", "udp-stale-conntrack", "--out", out} }, 8 * time.Second, nil},
		// The same with kube-proxy's own sync loop: its driver process and
		// its conntrack cleanup in the node namespace.
		{"timeline-kube-proxy", func(out string) []string {
			return []string{"run", "udp-stale-conntrack", "--engine", "kube-proxy", "--kube-proxy-version", "1.37", "--out", out}
		}, 8 * time.Second, nil},
		// An A/B job: the signal lands on svclab ab alone, whose child
		// svclab run holds the lab.
		{"ab", func(out string) []string { return []string{"ab", sweep, "--out", out} }, 6 * time.Second, nil},
		// migrate --verify: the scratch labs of each side's kernel run.
		{"migrate-verify", func(string) []string {
			return []string{"migrate", "--verify", "--engine", "native", "--from", "iptables", "--to", "nftables", "--node-address", "192.168.100.1", "../../scenarios/objects/migration-example.yaml"}
		}, 6 * time.Second, nil},
	}
}

// TestChaos starts runs (fairness, sweep, IPVS in the guest, a 2,000-pod
// build, timelines with both engines, an A/B job, migrate --verify), verify-trace and `up` labs (native
// and kube-proxy engine),
// delivers SIGINT, SIGTERM or SIGKILL at a random moment, runs `svclab
// cleanup` after SIGKILL, and checks that nothing is left (namespaces,
// processes, temp and run directories) and that the exit code and results
// are what svclab documents.
func TestChaos(t *testing.T) {
	bin := svclabBinary(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("chaos seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 10))
	kinds := chaosKinds(t)
	// 42 trials (issue 10 asks for at least 40): each kind meets each of
	// the three signals at least once (three consecutive trials take the
	// three signals); the kinds with the most moving parts (up and the
	// timelines) twice.
	plan := []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4,
		5, 5, 5, 6, 6, 6, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 9, 9, 9, 10, 10, 10}
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}
	before := hostState{root: rootSnapshot(t), svclab: svclabObjects(t)}
	start := time.Now()
	for i, k := range plan {
		kind, sig := kinds[k], sigs[i%len(sigs)]
		delay := time.Duration(rng.Int64N(int64(kind.maxDelay)))
		if only := os.Getenv("SVCLAB_CHAOS_ONLY"); only != "" && only != kind.name {
			continue // a developer's focus; CI runs every trial
		}
		t.Run(fmt.Sprintf("%02d-%s-%s", i, kind.name, sig), func(t *testing.T) {
			if kind.args == nil {
				chaosUp(t, bin, kind.up, sig, delay)
			} else {
				chaosRun(t, bin, kind, sig, delay)
			}
			if sig == syscall.SIGKILL {
				if out, err := exec.Command(bin, "cleanup").CombinedOutput(); err != nil {
					t.Fatalf("svclab cleanup: %v\n%s", err, out)
				}
			}
			checkNothingLeft(t, before)
		})
	}
	t.Logf("%d trials in %v", len(plan), time.Since(start).Round(time.Second))
}

// chaosRun starts svclab run, signals it after delay, and checks its exit
// code and results.jsonl.
func chaosRun(t *testing.T, bin string, kind chaosKind, sig syscall.Signal, delay time.Duration) {
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, kind.args(out)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	_ = cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("svclab did not exit within 90 s of %v:\n%s", sig, stderr.String())
	}
	code := exitStatus(cmd.ProcessState)
	want := 128 + int(sig) // 130, 143, 137
	if code != want && code != 0 {
		t.Fatalf("after %v at %v: exit %d (%v), want %d (or 0 if it finished first):\n%s", sig, delay, code, err, want, stderr.String())
	}
	if _, statErr := os.Stat(filepath.Join(out, results.ResultsFile)); statErr == nil {
		recs, warnings, rerr := results.ReadRecords(out)
		if rerr != nil || (sig != syscall.SIGKILL && len(warnings) > 0) {
			t.Fatalf("results.jsonl after %v: %v %v", sig, rerr, warnings)
		}
		if code == want && sig != syscall.SIGKILL && len(recs) > 2 && recs[len(recs)-1].Type != results.TypeInterrupted {
			t.Errorf("an interrupted run's results.jsonl must end with an interrupted record; last is %q", recs[len(recs)-1].Type)
		}
	}
}

// exitStatus is the exit code as a shell reports it: 128 + the signal for
// a process a signal ended (a signal that lands before svclab installs its
// handler ends it the default way, which is still "interrupted").
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// chaosUp starts an `up` lab and signals its daemon after delay; SIGINT
// and SIGTERM must make it remove its lab and lease.
func chaosUp(t *testing.T, bin string, up []string, sig syscall.Signal, delay time.Duration) {
	out, err := exec.Command(bin, append(append([]string{"up"}, up...), "--json")...).Output()
	if ee, ok := err.(*exec.ExitError); ok && strings.Contains(string(ee.Stderr), "kube-proxy driver not built") && os.Getenv("CI") != "true" {
		t.Skipf("%s", ee.Stderr)
	}
	if err != nil {
		t.Fatalf("svclab up %v: %v", up, err)
	}
	var st struct {
		Run string `json:"run"`
		PID int    `json:"pid"`
	}
	if err := json.Unmarshal(out, &st); err != nil || st.PID == 0 {
		t.Fatalf("svclab up --json: %v: %s", err, out)
	}
	time.Sleep(delay)
	if err := syscall.Kill(st.PID, sig); err != nil {
		t.Fatal(err)
	}
	if sig != syscall.SIGKILL {
		waitFor(t, 30*time.Second, "the up daemon to remove its lab", func() bool {
			_, err := os.Stat(filepath.Join("/run/svclab", st.Run+".lease"))
			return os.IsNotExist(err) && len(namespacesOf(t, st.Run)) == 0
		})
	} else {
		waitFor(t, 10*time.Second, "the killed daemon to exit", func() bool { return syscall.Kill(st.PID, 0) != nil })
	}
}

// hostState is what must be the same after every trial: the host's rules,
// links, addresses and routes, and the svclab objects that existed before
// the test (under CI there are none).
type hostState struct {
	root   string
	svclab map[string]bool
}

// svclabObjects lists svclab's namespaces, guest processes, kube-proxy
// drivers, nft monitors, temp dirs, cgroups, leases, logs and run
// directories.
func svclabObjects(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, n := range namespacesOf(t, "svl-") {
		out["netns "+n] = true
	}
	for name, pattern := range map[string]string{"user-mode-linux": "^/usr/bin/linux ", "kube-proxy driver": "kube-proxy-driver-", "nft monitor": "nft -a monitor trace"} {
		if ps, _ := exec.Command("pgrep", "-f", pattern).Output(); len(ps) > 0 {
			for _, pid := range strings.Fields(string(ps)) {
				out[name+" pid "+pid] = true
			}
		}
	}
	patterns := []string{"/tmp/svl-uml-*", "/dev/shm/svl-uml-*", "/sys/fs/cgroup/unified/svl-*", "/run/svclab/*", "/tmp/svclab-iptables-*", "/tmp/svclab-nft-stub-*"}
	if runs, err := procstat.MemoryCgroupPath("svl-*"); err == nil { // a run's memory cgroup, beside the test's own
		patterns = append(patterns, runs)
	}
	for _, pattern := range patterns {
		m, _ := filepath.Glob(pattern)
		for _, p := range m {
			out[p] = true
		}
	}
	return out
}

// checkNothingLeft: no svclab object that was not there before, and the
// host as it was.
func checkNothingLeft(t *testing.T, before hostState) {
	t.Helper()
	var left []string
	for o := range svclabObjects(t) {
		if !before.svclab[o] {
			left = append(left, o)
		}
	}
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if after := rootSnapshot(t); after != before.root {
		t.Errorf("the host changed:\n%s", diffLines(before.root, after))
	}
}

// diffLines lists the lines only one side has.
func diffLines(a, b string) string {
	in := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		in[l]++
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if in[l] > 0 {
			in[l]--
			continue
		}
		out = append(out, "+ "+l)
	}
	for l, n := range in {
		for ; n > 0; n-- {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}
