package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// svclabBinary builds the command once per test process.
func svclabBinary(t *testing.T) string {
	t.Helper()
	labtest.RequireRoot(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "svclab-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		afterAll = append(afterAll, func() { os.RemoveAll(dir) })
		_ = os.Chmod(dir, 0o755) // the no-root test runs it as nobody
		binPath = filepath.Join(dir, "svclab")
		// The kube-proxy drivers `make kube-proxy` built, for --engine kube-proxy.
		if os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS") == "" {
			if drivers, err := filepath.Abs(filepath.Join("..", "..", "bin")); err == nil {
				os.Setenv("SVCLAB_KUBE_PROXY_DRIVERS", drivers)
			}
		}
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildFailure{out: string(out), err: err}
		}
	})
	if buildErr != nil {
		t.Fatalf("build svclab: %v", buildErr)
	}
	return binPath
}

type buildFailure struct {
	out string
	err error
}

func (b *buildFailure) Error() string { return b.err.Error() + ": " + b.out }

// runSvclab runs the binary and returns stdout, stderr and the exit code.
func runSvclab(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(svclabBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run svclab %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

var prefixRE = regexp.MustCompile(`run (svl-[0-9a-f]+) of scenario`)

// startSvclab starts the binary and returns it with the run prefix, read from
// its first stderr line.
func startSvclab(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(svclabBinary(t), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	prefix := ""
	for sc.Scan() {
		if m := prefixRE.FindStringSubmatch(sc.Text()); m != nil {
			prefix = m[1]
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if prefix == "" {
		_ = cmd.Process.Kill()
		t.Fatal("svclab printed no run prefix")
	}
	return cmd, prefix
}

// namespacesOf lists the namespaces that belong to a run.
func namespacesOf(t *testing.T, prefix string) []string {
	t.Helper()
	names, err := netns.List(prefix)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out after %v waiting for %s", timeout, what)
}

// rootSnapshot records the host namespace's rules, links, routes and rules,
// with packet counters blanked, to prove a run leaves it untouched.
func rootSnapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, argv := range [][]string{
		{"ip", "-o", "link"}, {"ip", "-o", "addr"}, {"ip", "route", "show", "table", "all"}, {"ip", "rule"},
		{"iptables-legacy-save"}, {"iptables-nft-save"}, {"nft", "list", "ruleset"},
	} {
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		b.WriteString("## " + strings.Join(argv, " ") + "\n" + blankCounters(string(out)))
	}
	return b.String()
}

var countersRE = regexp.MustCompile(`\[\d+:\d+\]|^# .*$|packets \d+ bytes \d+`)

func blankCounters(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		out = append(out, countersRE.ReplaceAllString(line, "[c]"))
	}
	return strings.Join(out, "\n")
}
