package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
)

// childrenOf lists pid's live children, each with its command line.
func childrenOf(pid int) map[lease.Process]string {
	out := map[lease.Process]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		p, err := lease.ProcessOf(child)
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out[p] = strings.ReplaceAll(string(cmdline), "\x00", " ")
	}
	return out
}

// removeNamespaces deletes what a failed test left, so that later tests
// start clean.
func removeNamespaces(t *testing.T, prefix string) {
	t.Helper()
	for _, n := range namespacesOf(t, prefix) {
		_ = netns.Delete(n)
	}
}

// TestIssue26Point4VerifyTraceCleansUpOnSignal: SIGINT and SIGTERM during
// verify-trace of an nftables dump remove its namespaces and stop its
// `nft monitor trace`, exit 130/143; after SIGKILL the monitor dies with
// it and `svclab cleanup` removes the namespaces (a lease records them).
func TestIssue26Point4VerifyTraceCleansUpOnSignal(t *testing.T) {
	bin := svclabBinary(t)
	dump, err := filepath.Abs("../../lab/verifytrace/testdata/kube-proxy-nftables.nft")
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "verify-trace", "--packets", "1000000", dump)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			prefix := fmt.Sprintf("svl-vt-%d-", cmd.Process.Pid)
			t.Cleanup(func() { removeNamespaces(t, prefix) })
			var monitor lease.Process
			waitFor(t, 60*time.Second, "the monitor and the namespaces", func() bool {
				for p, line := range childrenOf(cmd.Process.Pid) {
					if strings.Contains(line, "monitor trace") {
						monitor = p
					}
				}
				return monitor.PID != 0 && len(namespacesOf(t, prefix)) == 2
			})
			t.Cleanup(func() { _, _ = monitor.Signal(syscall.SIGKILL) })
			time.Sleep(500 * time.Millisecond) // packets are flowing
			_ = cmd.Process.Signal(sig)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("verify-trace did not exit within 60 s of %v", sig)
			}
			if code, want := exitStatus(cmd.ProcessState), 128+int(sig); code != want {
				t.Errorf("exit %d, want %d\n%s", code, want, stderr.String())
			}
			waitFor(t, 5*time.Second, "nft monitor trace to end", func() bool { return !monitor.Alive() })
			if sig == syscall.SIGKILL {
				if out, err := exec.Command(bin, "cleanup", "--prefix", strings.TrimSuffix(prefix, "-")).CombinedOutput(); err != nil {
					t.Fatalf("svclab cleanup: %v\n%s", err, out)
				}
			}
			if left := namespacesOf(t, prefix); len(left) > 0 {
				t.Errorf("after %v: namespaces left: %v", sig, left)
			}
			if m, _ := filepath.Glob(filepath.Join(lease.Dir, strings.TrimSuffix(prefix, "-")+"*.lease")); len(m) > 0 {
				t.Errorf("after %v: leases left: %v", sig, m)
			}
		})
	}
}

// upKubeProxy starts `svclab up split-2` with the kube-proxy engine and
// iptables-legacy, with TMPDIR tmp (so that every temp dir the lab and its
// driver make lands there), and returns the run and the daemon's PID.
func upKubeProxy(t *testing.T, bin, tmp string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, "up", "split-2", "--engine", "kube-proxy", "--dataplane", "iptables-legacy", "--json")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && strings.Contains(string(ee.Stderr), "kube-proxy driver not built") && os.Getenv("CI") != "true" {
		t.Skipf("%s", ee.Stderr)
	}
	if err != nil {
		t.Fatalf("svclab up --engine kube-proxy: %v\n%s", err, out)
	}
	var st struct {
		Run string `json:"run"`
		PID int    `json:"pid"`
	}
	if err := json.Unmarshal(out, &st); err != nil || st.PID == 0 {
		t.Fatalf("svclab up --json: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(bin, "down", st.Run).Run() })
	return st.Run, st.PID
}

// leftovers lists what a kube-proxy-engine lab may leave: entries of its
// TMPDIR, its run directory entries and temp dirs named after its prefix,
// its namespaces and its driver processes.
func leftovers(t *testing.T, tmp, run string, drivers []lease.Process) []string {
	t.Helper()
	var left []string
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		left = append(left, filepath.Join(tmp, e.Name()))
	}
	for _, pattern := range []string{filepath.Join(lease.Dir, run+"*"), filepath.Join(os.TempDir(), run+"*")} {
		m, _ := filepath.Glob(pattern)
		left = append(left, m...)
	}
	left = append(left, namespacesOf(t, run)...)
	for _, p := range drivers {
		if p.Alive() {
			left = append(left, fmt.Sprintf("driver pid %d", p.PID))
		}
	}
	return left
}

// driversOf lists the kube-proxy drivers a daemon runs.
func driversOf(pid int) []lease.Process {
	var out []lease.Process
	for p, line := range childrenOf(pid) {
		if strings.Contains(line, "kube-proxy-driver") {
			out = append(out, p)
		}
	}
	return out
}

// TestIssue26Point5KubeProxyEngineLeavesNoTempDirs: `up` + `down` with the
// kube-proxy engine leaves no temp directory, also when the driver was
// killed first.
func TestIssue26Point5KubeProxyEngineLeavesNoTempDirs(t *testing.T) {
	bin := svclabBinary(t)
	for _, killDriver := range []bool{false, true} {
		t.Run(fmt.Sprintf("driver-killed=%v", killDriver), func(t *testing.T) {
			tmp := t.TempDir()
			if err := os.Chmod(tmp, 0o1777); err != nil {
				t.Fatal(err)
			}
			run, pid := upKubeProxy(t, bin, tmp)
			drivers := driversOf(pid)
			if len(drivers) == 0 {
				t.Fatalf("the up daemon %d runs no kube-proxy driver", pid)
			}
			if killDriver {
				for _, d := range drivers {
					_, _ = d.Signal(syscall.SIGKILL)
				}
				waitFor(t, 5*time.Second, "the driver to die", func() bool { return !drivers[0].Alive() })
			}
			if out, err := exec.Command(bin, "down", run).CombinedOutput(); err != nil {
				t.Fatalf("svclab down: %v\n%s", err, out)
			}
			if left := leftovers(t, tmp, run, drivers); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// TestIssue26Point14FullDiskLeavesNoTempFiles: a run stopped by a full
// disk leaves no .meta.json.tmp or .summary.json.tmp behind (the tmpfs is
// mounted in a private mount namespace, so the host never sees it).
func TestIssue26Point14FullDiskLeavesNoTempFiles(t *testing.T) {
	bin := svclabBinary(t)
	dir := t.TempDir()
	listing := filepath.Join(dir, "ls")
	// The mount point is made in the test's own temporary directory, which
	// the test removes (the tmpfs goes with the mount namespace).
	script := `mnt=$(mktemp -d "$4/mnt.XXXXXX") && mount -t tmpfs -o size=48k tmpfs "$mnt" && "$1" run "$2" --out "$mnt/run" 2>"$3.err"; ls -A "$mnt/run" > "$3"`
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", bin, filepath.Join("testdata", "sweep-tiny.yaml"), listing, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(listing)
	if err != nil {
		t.Fatal(err)
	}
	stderr, _ := os.ReadFile(listing + ".err")
	if !strings.Contains(string(stderr), "no space left on device") {
		t.Fatalf("the run did not fill the disk:\n%s", stderr)
	}
	for _, name := range strings.Fields(string(data)) {
		if strings.HasSuffix(name, ".tmp") {
			t.Errorf("left %s in the run directory (%s)", name, strings.Join(strings.Fields(string(data)), " "))
		}
	}
}
