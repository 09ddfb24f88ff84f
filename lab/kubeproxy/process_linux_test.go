package kubeproxy

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
)

// TestKillTakesTheDriversTools: killing a driver kills the tools it is
// running too (an iptables-nft-restore of 10,000 Services outlived its
// killed driver by minutes). A stand-in driver starts a long child and
// waits; after killGroup the child is gone.
func TestKillTakesTheDriversTools(t *testing.T) {
	labtest.RequireRoot(t)
	ns := labtest.ScratchNetns(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	bin := filepath.Join(dir, "driver")
	script := "#!/bin/sh\nsleep 300 &\necho $! > " + pidFile + "\nwait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := spawn(context.Background(), ns, bin, "", "loop")
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(10 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if child == 0 {
		t.Fatal("the stand-in driver did not start its child")
	}
	// Wait only once the child is gone: it holds the driver's stderr, so
	// Wait would block for as long as it lives.
	defer func() { _ = p.cmd.Wait() }()
	if err := p.killGroup(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(child, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(child, syscall.SIGKILL)
	t.Errorf("the driver's child %d outlived the driver's kill", child)
}
