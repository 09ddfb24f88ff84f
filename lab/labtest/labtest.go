// Package labtest holds what svclab's privileged tests share: the check that
// the test may touch the kernel, and scratch namespaces that clean up after
// themselves.
package labtest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"testing"

	"github.com/svclab/svclab/lab/netns"
)

// RequireRoot skips a test that needs root and CAP_NET_ADMIN when it runs
// without them, and fails it instead under CI (CI=true), where a skip would
// hide that the privileged tests never ran.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	const why = "needs root and CAP_NET_ADMIN to create network namespaces; run `make test` as root"
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: privileged tests must run)")
	}
	t.Skip(why)
}

// RequireBinary skips (or fails under CI) when a tool the test drives is missing.
func RequireBinary(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	why := name + " is not installed; run `make setup`"
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: privileged tests must run)")
	}
	t.Skip(why)
}

// ScratchNetns creates a uniquely named namespace for one test and deletes it
// when the test ends. The name starts with "svl-t" so `svclab cleanup` finds
// it if the test process is killed.
func ScratchNetns(t testing.TB) string {
	t.Helper()
	RequireRoot(t)
	var b [3]byte
	_, _ = rand.Read(b[:])
	name := "svl-t" + hex.EncodeToString(b[:])
	if err := netns.Create(name); err != nil {
		t.Fatalf("create scratch netns: %v", err)
	}
	t.Cleanup(func() {
		if err := netns.Delete(name); err != nil {
			t.Errorf("delete scratch netns: %v", err)
		}
	})
	if _, err := netns.Output(name, nil, "ip", "link", "set", "lo", "up"); err != nil {
		t.Fatalf("bring up lo in %s: %v", name, err)
	}
	return name
}
