package uml

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
)

// These tests boot real guests (a few seconds each). They skip, with the
// reason, without root or without user-mode-linux, and fail under CI=true.

// requireUML skips (or fails under CI) when no user-mode-linux kernel is
// installed, and returns it.
func requireUML(t *testing.T) Info {
	t.Helper()
	labtest.RequireRoot(t)
	info, err := Available()
	labtest.Require(t, err)
	return info
}

// buildSmoke builds the smoke program, static, into a fresh temp dir.
func buildSmoke(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "guestsmoke")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/svclab/svclab/lab/uml/internal/guestsmoke")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build guest smoke program: %v\n%s", err, out)
	}
	return bin
}

// isolateRun points TMPDIR at a directory of this test, so the UML command
// line (init=<state dir>/init) names it, and returns a function that
// fails the test if any process still mentions it.
func isolateRun(t *testing.T) func() {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return func() {
		t.Helper()
		if out, err := exec.Command("pgrep", "-a", "-f", dir).Output(); err == nil {
			t.Errorf("processes left behind by the guest:\n%s", out)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("guest state dirs left in %s: %v", dir, entries)
		}
	}
}

// TestSmokeIPVS boots a guest that creates an IPVS service with cloudflare/ipvs.
func TestSmokeIPVS(t *testing.T) {
	info := requireUML(t)
	if !info.HasIPVS() {
		t.Fatalf("user-mode-linux %s has no IPVS: %+v", info.Version, info)
	}
	bin := buildSmoke(t)
	checkLeftovers := isolateRun(t)
	var stdout, stderr, console bytes.Buffer
	res, err := Run(context.Background(), Spec{Binary: bin, Stdout: &stdout, Stderr: &stderr, Console: &console, Timeout: 30 * time.Second})
	checkLeftovers()
	if err != nil {
		t.Fatalf("Run: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	if !strings.HasSuffix(stdout.String(), "\nOK\n") || stderr.Len() != 0 {
		t.Fatalf("guest stdout:\n%q\nstderr:\n%q", &stdout, &stderr)
	}
	if res.GuestKernel != info.Version || res.ExitCode != 0 || res.Boot <= 0 || res.Boot > res.Duration {
		t.Errorf("result = %+v, want kernel %s, exit 0, 0 < boot <= duration", res, info.Version)
	}
	t.Logf("guest %s: boot %v, setup %v, whole run %v; %s", res.GuestKernel, res.Boot, res.Setup, res.Duration, strings.TrimSpace(stdout.String()))
}

// TestRunProgramOutputAndWorkDir runs a shell in the guest: separate stdout
// and stderr, a file written to the work dir, and a non-zero exit status.
func TestRunProgramOutputAndWorkDir(t *testing.T) {
	requireUML(t)
	initBin := buildSmoke(t)
	checkLeftovers := isolateRun(t)
	work := t.TempDir()
	var stdout, stderr bytes.Buffer
	script := `echo "$SVCLAB_UML_GUEST $(uname -r) $(pwd)"; echo to-stderr >&2; echo result > out.txt; exit 3`
	res, err := Run(context.Background(), Spec{
		Binary: "/bin/sh", Args: []string{"-c", script}, InitBinary: initBin, WorkDir: work,
		Modules: []string{"dummy"}, Stdout: &stdout, Stderr: &stderr, Timeout: 30 * time.Second,
	})
	checkLeftovers()
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 3 || res.ExitCode != 3 {
		t.Fatalf("Run = %+v, %v; want exit status 3", res, err)
	}
	if want := "1 " + res.GuestKernel + " " + work + "\n"; stdout.String() != want || stderr.String() != "to-stderr\n" {
		t.Errorf("stdout %q, stderr %q; want %q and %q", &stdout, &stderr, want, "to-stderr\n")
	}
	if b, err := os.ReadFile(filepath.Join(work, "out.txt")); string(b) != "result\n" {
		t.Errorf("work dir file = %q, %v; want the guest's result", b, err)
	}
}

// TestRunTimeoutKillsGuest: a guest that outlives its timeout is killed,
// with all its processes.
func TestRunTimeoutKillsGuest(t *testing.T) {
	requireUML(t)
	initBin := buildSmoke(t)
	checkLeftovers := isolateRun(t)
	start := time.Now()
	_, err := Run(context.Background(), Spec{Binary: "/bin/sleep", Args: []string{"600"}, InitBinary: initBin, Modules: []string{"dummy"}, Timeout: 6 * time.Second})
	checkLeftovers()
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("Run = %v, want a timeout error", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("Run took %v after a 6s timeout", took)
	}
	t.Logf("the error says:\n%v", err)
}

// TestRunBootFailure: an init that is not GuestInit makes the guest kernel
// panic; Run says so and leaves nothing behind.
func TestRunBootFailure(t *testing.T) {
	requireUML(t)
	checkLeftovers := isolateRun(t)
	_, err := Run(context.Background(), Spec{Binary: "/bin/true", Timeout: 20 * time.Second})
	checkLeftovers()
	if err == nil || !strings.Contains(err.Error(), "before its init reported") || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("Run = %v, want a boot failure with the kernel panic in the console tail", err)
	}
	t.Logf("the error says:\n%v", err)
}

// BenchmarkGuestRun boots a guest that runs /bin/true (default modules
// preloaded) and reports boot, setup and whole-run times.
func BenchmarkGuestRun(b *testing.B) {
	requireUMLForBench(b)
	bin := filepath.Join(b.TempDir(), "guestsmoke")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/svclab/svclab/lab/uml/internal/guestsmoke").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	var boot, setup, total time.Duration
	for b.Loop() {
		res, err := Run(context.Background(), Spec{Binary: "/bin/true", InitBinary: bin, Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		boot, setup, total = boot+res.Boot, setup+res.Setup, total+res.Duration
	}
	n := float64(b.N)
	b.ReportMetric(boot.Seconds()/n, "boot-s")
	b.ReportMetric(setup.Seconds()/n, "setup-s")
	b.ReportMetric(total.Seconds()/n, "run-s")
}

func requireUMLForBench(b *testing.B) {
	labtest.RequireRoot(b)
	if _, err := Available(); err != nil {
		b.Skip(err)
	}
}

// TestGuestOutsideHostNamespaces: the user-mode-linux process runs in
// network, mount, host name and IPC namespaces of its own, so a guest
// system call that escapes to the host kernel (its tracer killed) cannot
// touch the host's tables, mounts or name.
func TestGuestOutsideHostNamespaces(t *testing.T) {
	requireUML(t)
	initBin := buildSmoke(t)
	checkLeftovers := isolateRun(t)
	kinds := []string{"net", "mnt", "uts", "ipc"}
	host, guest := map[string]string{}, map[string]string{}
	for _, k := range kinds {
		link, err := os.Readlink("/proc/self/ns/" + k)
		if err != nil {
			t.Fatal(err)
		}
		host[k] = link
	}
	started := func(pgid int, _ []string) error {
		for _, k := range kinds {
			if pgid > 0 {
				guest[k], _ = os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pgid, k))
			}
		}
		return nil
	}
	_, err := Run(context.Background(), Spec{Binary: "/bin/true", InitBinary: initBin, Modules: []string{"dummy"}, Started: started, Timeout: 30 * time.Second})
	checkLeftovers()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, k := range kinds {
		if guest[k] == "" || guest[k] == host[k] {
			t.Errorf("the guest's %s namespace %q, the host's %q: want one of its own", k, guest[k], host[k])
		}
	}
}
