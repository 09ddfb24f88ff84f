package procstat

import (
	"errors"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/cgroup"
)

// TestParseKernelStat reads memory.stat's kernel line, or sums its parts
// on a kernel without one.
func TestParseKernelStat(t *testing.T) {
	tests := []struct {
		name, stat string
		want       int64
		err        error
	}{
		{"kernel line (5.18+)", "anon 4096\nfile 8192\nkernel 1048576\nkernel_stack 16384\nslab 700000\npercpu 2000\n", 1048576, nil},
		{"parts (before 5.18)", "anon 4096\nkernel_stack 16384\npagetables 4096\npercpu 2000\nsock 0\nslab 700000\n", 722480, nil},
		{"no slab", "anon 4096\npercpu 2000\n", 0, errNoKernelStat},
		{"empty", "", 0, errNoKernelStat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseKernelStat(strings.NewReader(tt.stat))
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("parseKernelStat = %d, %v; want %d, %v", got, err, tt.want, tt.err)
			}
		})
	}
	if _, err := parseKernelStat(strings.NewReader("kernel 12x\n")); err == nil {
		t.Error("parseKernelStat of a bad number: no error")
	}
}

func FuzzParseKernelStat(f *testing.F) {
	f.Add("kernel 1048576\n")
	f.Add("slab 700000\npercpu 2000\n")
	f.Add("slab -1\n")
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := parseKernelStat(strings.NewReader(s)); err == nil && !strings.Contains(s, "kernel") && !strings.Contains(s, "slab") {
			t.Errorf("read kernel memory from %q, which has neither a kernel nor a slab line", s)
		}
	})
}

// TestWatchOwnMemoryCgroup watches the cgroup2 group the test runs in
// where it has the memory controller (a cgroup v2-only host), and
// otherwise (this Debian host binds memory to cgroup v1) fails with the
// group named and nothing left watched. The user-mode-linux guest's smoke
// test (lab/uml TestSmokeIPVS) covers the charge itself.
func TestWatchOwnMemoryCgroup(t *testing.T) {
	dir, err := WatchOwnMemoryCgroup()
	if err != nil {
		named := strings.Contains(err.Error(), "memory.stat") || errors.Is(err, cgroup.ErrNotMounted)
		if !named || OwnMemoryCgroup() != "" {
			t.Errorf("WatchOwnMemoryCgroup failed with %v and left %q watched; want the group's memory.stat named, nothing watched", err, OwnMemoryCgroup())
		}
		t.Logf("no memory controller on this process's cgroup2 group: %v", err)
		return
	}
	defer LeaveMemoryCgroup()
	if got := OwnMemoryCgroup(); got != "cgroup2 group "+dir {
		t.Errorf("OwnMemoryCgroup = %q, want cgroup2 group %s", got, dir)
	}
	if r, err := ReadKernelMemory(); err != nil || !r.HasOwn || r.Own <= 0 {
		t.Errorf("ReadKernelMemory = %+v, %v; want the group's charge", r, err)
	}
}
