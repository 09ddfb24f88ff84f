// Package labtest holds what svclab's privileged tests share: the check that
// the test may touch the kernel, scratch namespaces that clean up after
// themselves, and the small models several packages' tests load.
package labtest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
)

// UnprivilegedEnv names the variable `make test-unit` sets to 1: every
// privileged test then skips, even as root and under CI, so the unprivileged
// suite runs alone (as the push workflow does).
const UnprivilegedEnv = "SVCLAB_TEST_UNPRIVILEGED"

// RequireRoot skips a test that needs root and CAP_NET_ADMIN when it runs
// without them, and fails it instead under CI (CI=true), where a skip would
// hide that the privileged tests never ran.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() == 0 && os.Getenv(UnprivilegedEnv) != "1" {
		return
	}
	Require(t, errors.New("needs root and CAP_NET_ADMIN to create network namespaces; run `make test` as root"))
}

// Require skips the test with err as the reason, or fails it under CI
// (CI=true), where a skip would hide that a privileged test never ran. A
// nil err lets the test go on.
func Require(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv(UnprivilegedEnv) == "1" {
		t.Skip("make test-unit (" + UnprivilegedEnv + "=1) skips privileged tests: " + err.Error())
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(err.Error() + " (CI=true: privileged tests must run)")
	}
	t.Skip(err)
}

// RequireBinary skips (or fails under CI) when a tool the test drives is missing.
func RequireBinary(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	Require(t, errors.New(name+" is not installed; run `make setup`"))
}

// Lease takes the lease of prefix for the test (lab/lease), so that
// `svclab cleanup` removes what a killed test left under it, and releases it
// when the test ends (after the test's own cleanups registered later).
func Lease(t testing.TB, prefix string) {
	t.Helper()
	l, err := lease.Acquire(prefix, lease.KindTest)
	if err != nil {
		t.Fatalf("lease %s: %v", prefix, err)
	}
	t.Cleanup(func() { _ = l.Release() })
}

// LeasedPrefix is a unique run prefix for one test (svl-t and six hex
// digits), leased (Lease) until the test ends.
func LeasedPrefix(t testing.TB) string {
	t.Helper()
	var b [3]byte
	_, _ = rand.Read(b[:])
	prefix := "svl-t" + hex.EncodeToString(b[:])
	Lease(t, prefix)
	return prefix
}

// ScratchNetns creates a uniquely named namespace for one test and deletes it
// when the test ends. It holds a lease on the name, so `svclab cleanup`
// removes it if the test process is killed.
func ScratchNetns(t testing.TB) string {
	t.Helper()
	RequireRoot(t)
	name := LeasedPrefix(t)
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
