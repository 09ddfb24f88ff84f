package topo

import (
	"context"
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
)

// requireGone fails unless no namespace of prefix is mounted and no link in
// the root namespace starts with prefix.
func requireGone(t *testing.T, prefix string) {
	t.Helper()
	left, err := netns.List(prefix)
	if err != nil || len(left) > 0 {
		t.Errorf("namespaces left for %s: %v, %v", prefix, left, err)
	}
	out, err := exec.Command("ip", "-o", "link").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), prefix) {
		t.Errorf("root namespace has links named %s*:\n%s", prefix, out)
	}
}

func TestCloseRemovesEverythingAndIsIdempotent(t *testing.T) {
	labtest.RequireRoot(t)
	spec := twoPodSpec(NewPrefix())
	topo, err := Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range topo.Namespaces() {
		if !netns.Exists(name) {
			t.Errorf("netns %s missing after Build", name)
		}
	}
	serveName(t, topo.Pods[0].Netns, ":8080", "pod-a") // an open socket must not block teardown
	for i := range 2 {
		if err := topo.Close(); err != nil {
			t.Fatalf("Close #%d: %v", i+1, err)
		}
	}
	requireGone(t, spec.Prefix)
	var nilTopo *Topology
	if err := nilTopo.Close(); err != nil {
		t.Errorf("nil Close = %v", err)
	}
}

// rootSnapshot is what the root namespace looks like to the tools an admin
// would check, with counters and timestamps blanked.
func rootSnapshot(t *testing.T) map[string]string {
	t.Helper()
	counters := regexp.MustCompile(`\[\d+:\d+\]|packets \d+ bytes \d+`)
	commands := [][]string{
		{"ip", "-o", "link"}, {"ip", "-o", "addr"}, {"ip", "route", "show", "table", "all"}, {"ip", "rule"},
		{"iptables-save"}, {"iptables-legacy-save"}, {"iptables-nft-save"}, {"nft", "list", "ruleset"},
	}
	snap := map[string]string{}
	for _, argv := range commands {
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatalf("%s: %v", strings.Join(argv, " "), err)
		}
		var kept []string
		for _, line := range strings.Split(string(out), "\n") {
			if !strings.HasPrefix(line, "#") {
				kept = append(kept, counters.ReplaceAllString(line, "<n>"))
			}
		}
		snap[strings.Join(argv, " ")] = strings.Join(kept, "\n")
	}
	return snap
}

func TestRootNamespaceUnchangedByBuildAndClose(t *testing.T) {
	labtest.RequireRoot(t)
	before := rootSnapshot(t)
	for _, onNode := range []bool{false, true} {
		spec := twoPodSpec(NewPrefix())
		spec.ClientOnNode = onNode
		topo, err := Build(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := topo.Close(); err != nil {
			t.Fatal(err)
		}
	}
	after := rootSnapshot(t)
	for cmd, was := range before {
		if after[cmd] != was {
			t.Errorf("root namespace `%s` changed:\nbefore:\n%s\nafter:\n%s", cmd, was, after[cmd])
		}
	}
}

func TestConcurrentTopologiesDoNotCollide(t *testing.T) {
	labtest.RequireRoot(t)
	prefixes := []string{NewPrefix(), NewPrefix()}
	for prefixes[1] == prefixes[0] {
		prefixes[1] = NewPrefix()
	}
	topos := make([]*Topology, len(prefixes))
	errs := make([]error, len(prefixes))
	var wg sync.WaitGroup
	for i, prefix := range prefixes {
		wg.Go(func() { topos[i], errs[i] = Build(context.Background(), twoPodSpec(prefix)) })
	}
	wg.Wait()
	for i := range topos {
		t.Cleanup(func() { _ = topos[i].Close() })
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	for i, topo := range topos { // the same pod address answers differently in each lab
		serveName(t, topo.Pods[0].Netns, ":8080", topo.Prefix)
		checkFetches(t, topo.ClientNetns, map[string]string{"10.244.0.10:8080": prefixes[i]})
	}
}

func TestCleanupRemovesAnAbandonedTopology(t *testing.T) {
	labtest.RequireRoot(t)
	spec := twoPodSpec(NewPrefix())
	topo, err := Build(context.Background(), spec) // never closed, as after kill -9
	if err != nil {
		t.Fatal(err)
	}
	removed, err := Cleanup(spec.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	if want := topo.Namespaces(); len(removed) != len(want) {
		t.Errorf("Cleanup removed %v, want %v", removed, want)
	}
	requireGone(t, spec.Prefix)
	if err := topo.Close(); err != nil { // the namespaces are gone already
		t.Errorf("Close after Cleanup: %v", err)
	}
}

func TestCleanupRejectsForeignPrefixes(t *testing.T) {
	for _, prefix := range []string{"foo", "/", "sv"} {
		if _, err := Cleanup(prefix); err == nil {
			t.Errorf("Cleanup(%q) succeeded, want a refusal", prefix)
		}
	}
}

func TestBuildFailureTearsDownWhatItBuilt(t *testing.T) {
	labtest.RequireRoot(t)
	spec := twoPodSpec(NewPrefix())
	blocker := spec.Prefix + "-" + spec.Pods[1].Name // the second pod's netns exists already
	if err := netns.Create(blocker); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = netns.Delete(blocker) })
	topo, err := Build(context.Background(), spec)
	if err == nil || topo != nil {
		t.Fatalf("Build = %v, %v; want an error", topo, err)
	}
	if !errors.Is(err, os.ErrExist) {
		t.Errorf("Build error = %v, want one wrapping os.ErrExist", err)
	}
	left, _ := netns.List(spec.Prefix)
	if len(left) != 1 || left[0] != blocker {
		t.Errorf("namespaces left after failed Build: %v, want only %s", left, blocker)
	}
}

func TestCloseOnSignal(t *testing.T) {
	labtest.RequireRoot(t)
	spec := twoPodSpec(NewPrefix())
	topo, err := Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = topo.Close() })
	closed := make(chan error, 1)
	stop := topo.CloseOnSignal(context.Background(), func(_ os.Signal, err error) { closed <- err }, syscall.SIGUSR1)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no Close within 10s of the signal")
	}
	requireGone(t, spec.Prefix)
}

func TestBuildRejectsBadSpecBeforeTouchingTheKernel(t *testing.T) {
	spec := Spec{Prefix: "svl-zz", Pods: []Pod{{IP: netip.MustParseAddr("10.0.0.1")}, {IP: netip.MustParseAddr("10.0.0.1")}}}
	if _, err := Build(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("Build with duplicate pod IPs: %v", err)
	}
}
