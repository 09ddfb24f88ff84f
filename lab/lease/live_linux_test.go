package lease

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
)

// TestLiveListsLiveOwners: Live lists a lease whose owner lives and
// leaves out one whose owner is gone and one not yet written (an Acquire
// under way), and leaves their locks free: the unwritten one's Acquire
// succeeds after it.
func TestLiveListsLiveOwners(t *testing.T) {
	requireRoot(t)
	live, err := Acquire(fmt.Sprintf("svl-lv-%da", os.Getpid()), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Release()
	dead := deadProcess(t)
	deadPath := Path(fmt.Sprintf("svl-lv-%db", os.Getpid()))
	unwritten := Path(fmt.Sprintf("svl-lv-%dc", os.Getpid()))
	data, err := json.Marshal(Record{Prefix: fmt.Sprintf("svl-lv-%db", os.Getpid()), Kind: "run", Owner: dead})
	if err != nil {
		t.Fatal(err)
	}
	for path, content := range map[string][]byte{deadPath: data, unwritten: nil} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(path)
	}
	records, err := Live()
	if err != nil {
		t.Fatal(err)
	}
	var prefixes []string
	for _, r := range records {
		prefixes = append(prefixes, r.Prefix)
	}
	if !slices.Contains(prefixes, live.Prefix()) {
		t.Errorf("Live = %v, want the live lease %s", prefixes, live.Prefix())
	}
	for _, gone := range []string{fmt.Sprintf("svl-lv-%db", os.Getpid()), fmt.Sprintf("svl-lv-%dc", os.Getpid())} {
		if slices.Contains(prefixes, gone) {
			t.Errorf("Live = %v, listed %s (owner gone, or not written)", prefixes, gone)
		}
	}
	// The unwritten file's lock is free: an Acquire of it succeeds.
	l, err := Acquire(fmt.Sprintf("svl-lv-%dc", os.Getpid()), "test")
	if err != nil {
		t.Fatalf("Acquire after Live: %v", err)
	}
	l.Release()
}

// deadProcess is a process that ran and exited.
func deadProcess(t *testing.T) Process {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p, err := ProcessOf(cmd.Process.Pid)
	if err != nil {
		p = Process{PID: cmd.Process.Pid, Start: 1}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return p
}
