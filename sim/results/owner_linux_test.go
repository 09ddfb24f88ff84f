package results

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/svclab/svclab/sim/atomicfile"
)

// owner returns path's uid and gid.
func owner(t *testing.T, path string) (int, int) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Sys().(*syscall.Stat_t)
	return int(s.Uid), int(s.Gid)
}

// TestRunDirectoryBelongsToTheSudoUser creates a run directory as root
// under a pretend sudo and checks that what svclab created is the user's
// and what was there before is still root's.
func TestRunDirectoryBelongsToTheSudoUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root can give files to another user")
	}
	const uid, gid = 54321, 54322
	tests := []struct {
		name     string
		sudoUID  string
		sudoGID  string
		wantUser bool
	}{
		{"under sudo", "54321", "54322", true},
		{"root's own shell", "", "", false},
		{"sudo from root", "0", "0", false},
		{"malformed", "alice", "54322", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SUDO_UID", tt.sudoUID)
			t.Setenv("SUDO_GID", tt.sudoGID)
			base := t.TempDir()
			existing := filepath.Join(base, "results")
			if err := os.Mkdir(existing, 0o755); err != nil {
				t.Fatal(err)
			}
			oldPlot := filepath.Join(existing, "old.png")
			if err := os.WriteFile(oldPlot, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			run := filepath.Join(existing, "runs", "split-2")
			w, err := Create(run)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			if err := WriteJSON(run, MetaFile, Meta{Run: "split-2"}); err != nil {
				t.Fatal(err)
			}
			if err := atomicfile.MkdirAll(filepath.Join(run, "plots", "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := atomicfile.Write(filepath.Join(run, "plots", "sub", "p.png"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := atomicfile.Write(oldPlot, []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
			created := []string{filepath.Join(existing, "runs"), run, filepath.Join(run, ResultsFile), filepath.Join(run, MetaFile),
				filepath.Join(run, "plots"), filepath.Join(run, "plots", "sub"), filepath.Join(run, "plots", "sub", "p.png")}
			for _, p := range created {
				u, g := owner(t, p)
				if tt.wantUser && (u != uid || g != gid) || !tt.wantUser && (u != 0 || g != 0) {
					t.Errorf("%s is %d:%d; want the sudo user's (%v)", p, u, g, tt.wantUser)
				}
			}
			for _, p := range []string{base, existing, oldPlot} {
				if u, g := owner(t, p); u != 0 || g != 0 {
					t.Errorf("%s was there before svclab and is now %d:%d; it must stay root's", p, u, g)
				}
			}
		})
	}
}
