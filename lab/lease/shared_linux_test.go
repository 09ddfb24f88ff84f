package lease

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs root (lease files live in /run/svclab)")
		}
		t.Skip("needs root (lease files live in /run/svclab)")
	}
}

// TestShared: the last lab out releases the lease, or keeps its file for
// cleanup when a lab left something; StateDirs lists the run's
// directories in Dir only.
func TestShared(t *testing.T) {
	requireRoot(t)
	tests := []struct {
		name     string
		removed  []bool // what each of the labs reports at Drop
		wantFile bool
	}{
		{"all removed", []bool{true, true}, false},
		{"one left objects", []bool{true, false}, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Shared{Prefix: fmt.Sprintf("svl-lt-%d%d", os.Getpid(), i), Kind: "test"}
			t.Cleanup(func() { os.Remove(Path(s.Prefix)) })
			for range tt.removed {
				if _, err := s.Hold(); err != nil {
					t.Fatal(err)
				}
			}
			for n, removed := range tt.removed {
				if err := s.Drop(removed); err != nil {
					t.Fatal(err)
				}
				_, err := os.Stat(Path(s.Prefix))
				if last := n == len(tt.removed)-1; !last && err != nil {
					t.Fatalf("the lease went before its last lab: %v", err)
				} else if last && (err == nil) != tt.wantFile {
					t.Fatalf("after the last lab: lease file exists %v, want %v", err == nil, tt.wantFile)
				}
			}
		})
	}
}

func TestStateDirs(t *testing.T) {
	requireRoot(t)
	prefix := fmt.Sprintf("svl-lt-%d", os.Getpid())
	mine := filepath.Join(Dir, prefix+"-node-iptables-legacy-1")
	other := filepath.Join(Dir, prefix+"0-node-iptables-legacy-1")
	for _, d := range []string{mine, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d); Tidy() })
	}
	if got := StateDirs(prefix); len(got) != 1 || got[0] != mine {
		t.Fatalf("StateDirs(%s) = %v, want [%s]", prefix, got, mine)
	}
}
