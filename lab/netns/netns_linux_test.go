package netns_test

import (
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
)

func TestScratchNetnsIsIsolated(t *testing.T) {
	name := labtest.ScratchNetns(t)
	out, err := netns.Output(name, nil, "ip", "-o", "link")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(strings.TrimSpace(string(out)), "\n") + 1; got != 1 {
		t.Fatalf("new netns %s has %d links, want only lo:\n%s", name, got, out)
	}
	if !netns.Exists(name) {
		t.Fatalf("netns %s not mounted", name)
	}
	list, err := netns.List("svl-t")
	if err != nil || len(list) == 0 {
		t.Fatalf("List(svl-t) = %v, %v", list, err)
	}
}

// TestNewNamespaceDoesNotForward: a new namespace inherits the host's IPv4
// conf (podman and docker turn the host's forwarding on); Create resets
// forwarding to the kernel's default, whatever the host's is, so a lab's
// client and pods never route what they should drop.
func TestNewNamespaceDoesNotForward(t *testing.T) {
	name := labtest.ScratchNetns(t)
	for _, key := range []string{"net.ipv4.ip_forward", "net.ipv4.conf.all.forwarding", "net.ipv4.conf.default.forwarding"} {
		out, err := netns.Output(name, nil, "sysctl", "-n", key)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != "0" {
			t.Errorf("%s in a new namespace = %s, want 0 (the kernel's default, not the host's)", key, got)
		}
	}
}

// TestStopCommandsKillsTheRunsCommands: a command running in a namespace
// of the stopped prefix returns at once with an error; one in another
// namespace runs on.
func TestStopCommandsKillsTheRunsCommands(t *testing.T) {
	stopped, other := labtest.ScratchNetns(t), labtest.ScratchNetns(t)
	type result struct {
		err  error
		took time.Duration
	}
	run := func(name, seconds string) chan result {
		done := make(chan result, 1)
		go func() {
			start := time.Now()
			_, err := netns.Output(name, nil, "sleep", seconds)
			done <- result{err, time.Since(start)}
		}()
		return done
	}
	stoppedDone, otherDone := run(stopped, "30"), run(other, "2")
	killed := 0
	for deadline := time.Now().Add(20 * time.Second); killed == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond) // until the command has started
		killed = netns.StopCommands(stopped)
	}
	if killed != 1 {
		t.Fatalf("StopCommands(%s) killed %d commands, want 1", stopped, killed)
	}
	if r := <-stoppedDone; r.err == nil || r.took > 25*time.Second {
		t.Errorf("the stopped namespace's sleep 30: %v after %v, want an error at once", r.err, r.took)
	}
	if r := <-otherDone; r.err != nil || r.took < 2*time.Second {
		t.Errorf("the other namespace's sleep 2: %v after %v, want it to finish", r.err, r.took)
	}
}

// TestOutputCPUSplitsUserFromSystem: a command that only computes spends
// its CPU time in user space, one that only reads from the kernel spends
// most of it in system time; both are counted in Total.
func TestOutputCPUSplitsUserFromSystem(t *testing.T) {
	name := labtest.ScratchNetns(t)
	tests := []struct {
		name     string
		argv     []string
		mostUser bool
	}{
		{"computing", []string{"awk", "BEGIN { for (i = 0; i < 20000000; i++) s += i; print s }"}, true},
		{"reading /dev/zero", []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=64k", "count=200000"}, false},
	}
	for _, tt := range tests {
		_, cpu, err := netns.OutputCPU(name, nil, tt.argv...)
		if err != nil {
			t.Fatal(err)
		}
		if cpu.Total() != cpu.User+cpu.System || cpu.Total() <= 0 {
			t.Errorf("%s: %+v: want user and system adding up to a positive total", tt.name, cpu)
		}
		if userMost := cpu.User > cpu.System; userMost != tt.mostUser {
			t.Errorf("%s: user %v, system %v: want user the larger = %v", tt.name, cpu.User, cpu.System, tt.mostUser)
		}
	}
}
