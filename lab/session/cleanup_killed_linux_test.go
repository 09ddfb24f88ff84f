package session

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/lease"
)

// holdLeaseEnv makes the test binary a lease holder (TestHoldLeaseHelper).
const holdLeaseEnv = "SVCLAB_TEST_HOLD_LEASE"

// TestCleanupRightAfterKill: `svclab cleanup` run the moment a run was
// killed (as after kill -9 of svclab ab, whose child dies with it) cleans
// that run up instead of reporting it live. The holder, like a run with
// traffic, holds thousands of connected sockets opened before its lease:
// its exit closes them first and frees the lease's lock last, long enough
// for cleanup to look while the exit is under way.
func TestCleanupRightAfterKill(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs root (lease files live in /run/svclab)")
		}
		t.Skip("needs root (lease files live in /run/svclab)")
	}
	for i := range 3 {
		prefix := fmt.Sprintf("svl-ck%x%d", os.Getpid()&0xffff, i)
		holder := exec.Command(os.Args[0], "-test.run=^TestHoldLeaseHelper$")
		holder.Env = append(os.Environ(), holdLeaseEnv+"="+prefix)
		out, err := holder.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = holder.Wait(); os.Remove(lease.Path(prefix)) })
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("lease holder: %q, %v", line, err)
		}
		if err := holder.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		rep, err := Cleanup(CleanupOptions{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Live) > 0 {
			t.Fatalf("trial %d: cleanup left the killed run live: %+v", i, rep.Live)
		}
		if _, err := os.Stat(lease.Path(prefix)); !os.IsNotExist(err) {
			t.Fatalf("trial %d: lease %s still there (%v)", i, lease.Path(prefix), err)
		}
	}
}

// TestHoldLeaseHelper is not a test: run by TestCleanupRightAfterKill, it
// opens 3,000 loopback TCP connections (both ends), takes a lease, says
// "ready" and waits to be killed.
func TestHoldLeaseHelper(t *testing.T) {
	prefix := os.Getenv(holdLeaseEnv)
	if prefix == "" {
		t.Skip("a helper process of TestCleanupRightAfterKill")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for range 3000 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte("unread")) // an unread byte makes close send a reset
		conns = append(conns, c, s)
	}
	if _, err := lease.Acquire(prefix, "test"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	time.Sleep(time.Minute)
	t.Log(len(conns))
}
