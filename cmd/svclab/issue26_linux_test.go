package main

import (
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
