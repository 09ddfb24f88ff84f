package procstat

import (
	"math"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// TestReadOutsideCPU reads a fixed /proc: the times of every process but
// the kernel threads (kthreadd, 2, and its child 3) and the given root's
// tree (for 100: 100, its child 101 and grandchild 102) and the members'
// (the run's memory group), each process once with its reaped children's
// times, and steal. /proc/stat's busy time plays no part.
func TestReadOutsideCPU(t *testing.T) {
	fs := fixture(t, "testdata/tree")
	for _, tc := range []struct {
		name      string
		root      int
		members   []int
		wantTasks float64
	}{
		{"a tree of three", 100, nil, 0.3 + 4.0 + 0.1},
		{"a leaf", 102, nil, 0.3 + 2.0 + 0.6 + 4.0 + 0.1},
		{"another tree", 200, nil, 0.3 + 2.7},
		// 201, adopted away from 100's tree, is still in the run's group.
		{"an adopted process of the run's group", 100, []int{100, 101, 102, 201}, 0.3 + 4.0},
		{"a group member's own tree", 100, []int{200}, 0.3},
		{"a member that has exited", 100, []int{999}, 0.3 + 4.0 + 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readOutsideCPU(fs, tc.root, tc.members)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Tasks-tc.wantTasks) > 1e-9 || math.Abs(got.Steal-0.25) > 1e-9 {
				t.Errorf("readOutsideCPU(%d) = %+v, want Tasks %v, Steal 0.25", tc.root, got, tc.wantTasks)
			}
		})
	}
	if _, err := readOutsideCPU(fs, 999, nil); err == nil {
		t.Error("readOutsideCPU of a process that does not exist: no error")
	}
	if _, err := readOutsideCPU(fixture(t, "testdata/noslab"), 1, nil); err == nil {
		t.Error("readOutsideCPU without a stat file: no error")
	}
}

// TestTreeCPUAgreesWithRusage reads this process's tree on the real /proc
// before and after it burns CPU itself and in a child it reaps: the tree's
// growth is what getrusage says the process and its reaped children used,
// to a few ticks. It does not depend on the machine's other load.
func TestTreeCPUAgreesWithRusage(t *testing.T) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	read := func() (tree, rusage float64) {
		procs, err := readProcTree(fs)
		if err != nil {
			t.Fatal(err)
		}
		var self, children syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
			t.Fatal(err)
		}
		seconds := func(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }
		return procs.treeCPU(os.Getpid()), seconds(self.Utime) + seconds(self.Stime) + seconds(children.Utime) + seconds(children.Stime)
	}
	tree0, rusage0 := read()
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
	}
	if out, err := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done").CombinedOutput(); err != nil {
		t.Fatalf("busy child: %v: %s", err, out)
	}
	tree1, rusage1 := read()
	got, want := tree1-tree0, rusage1-rusage0
	if want < 0.3 || math.Abs(got-want) > 0.05+0.1*want {
		t.Errorf("the tree grew %.3f s, getrusage says %.3f s (self and reaped children)", got, want)
	}
}
