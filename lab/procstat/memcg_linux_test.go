package procstat

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/svclab/svclab/lab/cgroup"
	"github.com/svclab/svclab/lab/labtest"
)

// growthCase is a reading after a load, the growth Growth should give from
// a test's reading before it, and whether it should call it disturbed.
type growthCase struct {
	name      string
	after     MemoryReading
	want      int64
	disturbed bool
}

// checkGrowth runs before.Growth on each case's reading after.
func checkGrowth(t *testing.T, before MemoryReading, tests []growthCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := before.Growth(tt.after)
			if got != tt.want || errors.Is(err, ErrMemoryDisturbed) != tt.disturbed {
				t.Errorf("Growth = %d, %v; want %d, disturbed %v", got, err, tt.want, tt.disturbed)
			}
		})
	}
}

// TestGrowthIsCheckedAgainstTheOwnCharge: the machine's growth stands when
// the process's own charge agrees with it within 20% and 1 MB, or when
// there is no own charge to check it by.
func TestGrowthIsCheckedAgainstTheOwnCharge(t *testing.T) {
	const mb = 1 << 20
	before := MemoryReading{Machine: 100 * mb, Own: 10 * mb, HasOwn: true}
	tests := []growthCase{
		{"agrees", MemoryReading{Machine: 118 * mb, Own: 30 * mb, HasOwn: true}, 18 * mb, false},
		{"nftables' uncharged arrays", MemoryReading{Machine: 123 * mb, Own: 30 * mb, HasOwn: true}, 23 * mb, false},
		{"a namespace freed meanwhile", MemoryReading{Machine: 86 * mb, Own: 30 * mb, HasOwn: true}, -14 * mb, true},
		{"another load meanwhile", MemoryReading{Machine: 140 * mb, Own: 30 * mb, HasOwn: true}, 40 * mb, true},
		{"small load, background", MemoryReading{Machine: 100*mb + mb/2, Own: 10 * mb, HasOwn: true}, mb / 2, false},
		{"no own group after", MemoryReading{Machine: 86 * mb}, -14 * mb, false},
	}
	checkGrowth(t, before, tests)
}

// TestGrowthLessOtherGroupsCharges: what other processes' memory groups
// were charged during the load (the hierarchy's count less the own group's)
// is not the load's, but their page tables, charged and not in the
// machine's figure, are no part of its change either; without that count
// in both readings the machine's growth stands as it is.
func TestGrowthLessOtherGroupsCharges(t *testing.T) {
	const mb = 1 << 20
	before := MemoryReading{Machine: 100 * mb, Own: 10 * mb, HasOwn: true, AllCharged: 500 * mb, HasAllCharged: true}
	tests := []growthCase{
		{"no one else", MemoryReading{Machine: 105 * mb, Own: 15 * mb, HasOwn: true, AllCharged: 505 * mb, HasAllCharged: true}, 5 * mb, false},
		{"a compiler freed its files", MemoryReading{Machine: 103 * mb, Own: 15 * mb, HasOwn: true, AllCharged: 503 * mb, HasAllCharged: true}, 5 * mb, false},
		{"a compiler wrote its files", MemoryReading{Machine: 108 * mb, Own: 15 * mb, HasOwn: true, AllCharged: 508 * mb, HasAllCharged: true}, 5 * mb, false},
		{"uncharged frees stay, and are caught", MemoryReading{Machine: 98 * mb, Own: 15 * mb, HasOwn: true, AllCharged: 505 * mb, HasAllCharged: true}, -2 * mb, true},
		{"a process's page tables freed", MemoryReading{Machine: 105 * mb, Own: 15 * mb, HasOwn: true, AllCharged: 503 * mb, HasAllCharged: true, OthersPageTables: -2 * mb}, 5 * mb, false},
		{"no count after", MemoryReading{Machine: 103 * mb, Own: 15 * mb, HasOwn: true}, 3 * mb, false},
	}
	checkGrowth(t, before, tests)
}

// TestGrowthBesidesUnchargedLists: a load that makes lists no memory group
// is charged for (xt_recent's) grows the machine's figure past its own
// charge by those lists, which the check then expects.
func TestGrowthBesidesUnchargedLists(t *testing.T) {
	const mb = 1 << 20
	before := MemoryReading{Machine: 100 * mb, Own: 10 * mb, HasOwn: true, AllCharged: 500 * mb, HasAllCharged: true}
	after := MemoryReading{Machine: 300 * mb, Own: 160 * mb, HasOwn: true, AllCharged: 650 * mb, HasAllCharged: true}
	for _, tt := range []struct {
		uncharged int64
		disturbed bool
	}{{0, true}, {45 * mb, false}} {
		got, err := before.GrowthBesides(after, tt.uncharged)
		if got != 200*mb || errors.Is(err, ErrMemoryDisturbed) != tt.disturbed {
			t.Errorf("with %d uncharged bytes: growth %d, %v; want 200 MB, disturbed %v", tt.uncharged, got, err, tt.disturbed)
		}
	}
}

// TestJoinMemoryCgroupChargesTheProcess joins a memory cgroup, sees a child
// process's kernel memory charged to it, and leaves: the process is back in
// its group and the directory is gone.
func TestJoinMemoryCgroupChargesTheProcess(t *testing.T) {
	labtest.RequireRoot(t)
	home, err := ownMemoryGroupDir()
	if errors.Is(err, cgroup.ErrNotMounted) {
		labtest.Require(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	path, err := MemoryCgroupPath("svl-test-" + filepath.Base(t.TempDir()) + "-kmem")
	if err != nil {
		t.Fatal(err)
	}
	if err := JoinMemoryCgroup(path); err != nil {
		t.Fatal(err)
	}
	before, err := ReadKernelMemory()
	if err != nil || !before.HasOwn {
		t.Fatalf("ReadKernelMemory in the group = %+v, %v; want an own charge", before, err)
	}
	if got, want := OwnMemoryCgroup(), "cgroup v1 group "+path; got != want {
		t.Errorf("OwnMemoryCgroup in the group = %q, want %q", got, want)
	}
	// A namespace with a few thousand addresses holds kernel memory that
	// the child processes charge to the group.
	ns := labtest.ScratchNetns(t)
	var cmds strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&cmds, "address add 10.%d.%d.1/32 dev lo\n", i/250, i%250)
	}
	cmd := exec.Command("ip", "-n", ns, "-batch", "-")
	cmd.Stdin = strings.NewReader(cmds.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ip -batch: %v: %s", err, out)
	}
	after, err := ReadKernelMemory()
	if err != nil || !after.HasOwn || after.Own-before.Own < 100_000 {
		t.Errorf("2,000 addresses charged %d bytes to the group (%v); want over 100 kB", after.Own-before.Own, err)
	}
	// The group's processes (this one) have page tables.
	if tables, ok := ownPageTables(); !ok || tables <= 0 {
		t.Errorf("the group's page tables %d (%v); want this process's", tables, ok)
	}
	// The hierarchy's count holds the group's charges.
	if !before.HasAllCharged || !after.HasAllCharged || after.AllCharged < after.Own || before.AllCharged < before.Own || before.OthersPageTables <= 0 {
		t.Errorf("every group's charges read %+v then %+v; want them and the page tables in both readings, above the group's own", before, after)
	}
	if err := LeaveMemoryCgroup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after leaving: %v; want it removed", path, err)
	}
	if now, err := ownMemoryGroupDir(); err != nil || now != home {
		t.Errorf("the process's group after leaving is %s (%v), want %s", now, err, home)
	}
	if left, _ := ReadKernelMemory(); left.HasOwn || OwnMemoryCgroup() != "" {
		t.Errorf("ReadKernelMemory after leaving = %+v, group %q; want no own charge", left, OwnMemoryCgroup())
	}
}

// TestAdoptedProcessStaysTheRuns: a process started from the group whose
// parent exits first is adopted out of this process's tree, but its group
// still lists it, so ReadOutsideCPU counts it as the run's, not as other
// programs' load.
func TestAdoptedProcessStaysTheRuns(t *testing.T) {
	labtest.RequireRoot(t)
	if _, err := ownMemoryGroupDir(); errors.Is(err, cgroup.ErrNotMounted) {
		labtest.Require(t, err)
	}
	path, err := MemoryCgroupPath("svl-test-" + filepath.Base(t.TempDir()) + "-adopt")
	if err != nil {
		t.Fatal(err)
	}
	if err := JoinMemoryCgroup(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := LeaveMemoryCgroup(); err != nil {
			t.Error(err)
		}
	})
	// sh starts a sleep in the background, prints its pid and exits: the
	// sleep is an orphan, adopted by init (or a subreaper).
	out, err := exec.Command("sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatalf("start an orphan: %v", err)
	}
	var orphan int
	if _, err := fmt.Sscan(string(out), &orphan); err != nil {
		t.Fatalf("orphan pid %q: %v", out, err)
	}
	t.Cleanup(func() { killAndAwait(t, orphan) })
	members, err := ownGroupProcesses()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(members, orphan) || !slices.Contains(members, os.Getpid()) {
		t.Errorf("the group lists %v; want this process (%d) and the orphan (%d)", members, os.Getpid(), orphan)
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	procs, err := readProcTree(fs)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := procs.stats[orphan]; !ok || s.PPID == os.Getpid() {
		t.Fatalf("orphan %d: in /proc %v, parent %d; want it adopted away from %d", orphan, ok, s.PPID, os.Getpid())
	}
	run := procs.treeCPU(append([]int{os.Getpid()}, members...)...)
	if run < procs.treeCPU(os.Getpid())+procs.treeCPU(orphan) {
		t.Errorf("the run's time %.2f s leaves out the orphan's", run)
	}
}

// killAndAwait kills pid, not a child of this process, and waits until its
// adopter has reaped it (its /proc entry is gone), so that the group it was
// in can be removed.
func killAndAwait(t *testing.T, pid int) {
	t.Helper()
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, os.ErrNotExist) {
			return
		}
	}
	t.Errorf("process %d still there 5 s after SIGKILL", pid)
}
