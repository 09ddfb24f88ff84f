package procstat

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// OutsideCPU is the CPU time the machine spent outside one process tree
// since boot, in seconds: what other programs cost while that tree (a
// run) measured. It is cumulative, like CPUTimes; a rate is the difference
// of two readings over the wall time between them.
type OutsideCPU struct {
	// Tasks is the CPU time of every process but the tree's and the
	// kernel threads', each with the times of the children it has reaped:
	// other programs. A process that exits moves its times to its
	// parent's, so the sum does not drop, and a program that starts and
	// ends between two readings counts in full. Kernel threads are left
	// out because they do the tree's deferred work as much as anyone's
	// (kworkers freeing a flushed ruleset, tearing down a namespace), and
	// so is the work no task is charged for (softirq on an idle CPU: RCU
	// freeing a flushed ruleset). The machine's busy time less the tree's
	// is not this: it counts that work, up to a CPU at a time.
	Tasks float64
	// Steal is time the hypervisor gave this machine's vCPUs to others
	// (/proc/stat's steal; zero where the hypervisor does not report it).
	Steal float64
}

// ReadOutsideCPU reads the times of every process, and steal from
// /proc/stat; the tree is rooted at root (root and its live descendants)
// and, when this process has joined a memory group of its own
// (JoinMemoryCgroup), takes in every process in that group and its
// descendants too: a process the run started whose parent exited first is
// adopted by init, out of root's tree, but stays in the group.
func ReadOutsideCPU(root int) (OutsideCPU, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return OutsideCPU{}, fmt.Errorf("open /proc: %w", err)
	}
	members, err := ownGroupProcesses()
	if err != nil {
		return OutsideCPU{}, err
	}
	return readOutsideCPU(fs, root, members)
}

// kthreadd is the process every kernel thread descends from.
const kthreadd = 2

// readOutsideCPU reads fs's stat files; the tree is root's and members'.
func readOutsideCPU(fs procfs.FS, root int, members []int) (OutsideCPU, error) {
	st, err := fs.Stat()
	if err != nil {
		return OutsideCPU{}, fmt.Errorf("read /proc/stat: %w", err)
	}
	procs, err := readProcTree(fs)
	if err != nil {
		return OutsideCPU{}, err
	}
	if _, ok := procs.stats[root]; !ok {
		return OutsideCPU{}, fmt.Errorf("read /proc/%d/stat: no such process", root)
	}
	run := procs.treeCPU(append([]int{root}, members...)...)
	return OutsideCPU{Tasks: procs.allCPU() - run - procs.treeCPU(kthreadd), Steal: st.CPUTotal.Steal}, nil
}

// procTree is every process's stat and children, read at one moment.
type procTree struct {
	stats    map[int]procfs.ProcStat
	children map[int][]int
}

// readProcTree reads the stat file of every process in fs.
func readProcTree(fs procfs.FS) (procTree, error) {
	procs, err := fs.AllProcs()
	if err != nil {
		return procTree{}, fmt.Errorf("list /proc: %w", err)
	}
	t := procTree{stats: make(map[int]procfs.ProcStat, len(procs)), children: map[int][]int{}}
	for _, p := range procs {
		s, err := p.Stat()
		if err != nil {
			continue // it exited while we read
		}
		t.stats[s.PID] = s
		t.children[s.PPID] = append(t.children[s.PPID], s.PID)
	}
	return t, nil
}

// allCPU is the CPU time of every process, in seconds, each counting
// utime + stime and the times of the children it has reaped.
func (t procTree) allCPU() float64 {
	var ticks int
	for _, s := range t.stats {
		ticks += processTicks(s)
	}
	return float64(ticks) / userHZ
}

// processTicks is a process's utime + stime and its reaped children's.
func processTicks(s procfs.ProcStat) int {
	return int(s.UTime) + int(s.STime) + s.CUTime + s.CSTime
}

// treeCPU is the CPU time of roots and their live descendants, in
// seconds, each process counted once with utime + stime and the times of
// the children it has reaped; roots not there count 0. It is what a
// reading leaves out, not a measure of the tree: a descendant's times as
// it exits need not show up whole in its parent's (on this VM the sum fell
// as an nft load exited). A descendant whose parent exits first is adopted
// outside its root's tree: unless it is a root itself (ReadOutsideCPU
// passes the run's memory group's processes), from then on its times, all
// it had used, count as outside.
func (t procTree) treeCPU(roots ...int) float64 {
	var ticks int
	seen := map[int]bool{}
	for queue := roots; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		s, ok := t.stats[pid]
		if !ok || seen[pid] {
			continue
		}
		seen[pid] = true
		ticks += processTicks(s)
		queue = append(queue, t.children[pid]...)
	}
	return float64(ticks) / userHZ
}

// userHZ is the kernel's clock ticks per second in /proc's times (USER_HZ,
// 100 on every Linux architecture svclab runs on; procfs assumes the same).
const userHZ = 100
