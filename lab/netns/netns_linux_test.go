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
