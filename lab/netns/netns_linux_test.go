package netns_test

import (
	"strings"
	"testing"

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
