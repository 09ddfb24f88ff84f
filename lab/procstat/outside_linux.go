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
	// Tasks is the machine's busy time (CPUTimes.Busy: user, nice,
	// system, irq and softirq) less the tree's own and the kernel
	// threads': other programs. A task's times hold the softirq work done
	// in its context (unless the kernel accounts irq time apart), which
	// /proc/stat counts as softirq, so busy time must include it. Kernel
	// threads are left out because they do the tree's deferred work as
	// much as anyone's (kworkers freeing a flushed ruleset, tearing down a
	// namespace; ksoftirqd forwarding its packets); the interrupt work
	// that lands on an idle CPU counts as outside.
	Tasks float64
	// Steal is time the hypervisor gave this machine's vCPUs to others
	// (/proc/stat's steal; zero where the hypervisor does not report it).
	Steal float64
}

// ReadOutsideCPU reads the machine's CPU times and those of the process
// tree rooted at root (root and its live descendants, each with its
// reaped children's times) and of the kernel threads.
func ReadOutsideCPU(root int) (OutsideCPU, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return OutsideCPU{}, fmt.Errorf("open /proc: %w", err)
	}
	return readOutsideCPU(fs, root)
}

// kthreadd is the process every kernel thread descends from.
const kthreadd = 2

// readOutsideCPU reads fs's stat files.
func readOutsideCPU(fs procfs.FS, root int) (OutsideCPU, error) {
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
	c := st.CPUTotal
	busy := CPUTimes{User: c.User, Nice: c.Nice, System: c.System, IRQ: c.IRQ, SoftIRQ: c.SoftIRQ}.Busy()
	return OutsideCPU{Tasks: busy - procs.treeCPU(root) - procs.treeCPU(kthreadd), Steal: c.Steal}, nil
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

// treeCPU is the CPU time of root and its live descendants, in seconds,
// each counting utime + stime and the times of the children it has
// reaped; 0 when root is not there. The sum does not drop when a
// descendant exits: its times move to its parent's reaped children's
// times. A descendant whose parent exits first is adopted outside the
// tree and leaves its time behind, counted outside.
func (t procTree) treeCPU(root int) float64 {
	var ticks int
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		s, ok := t.stats[queue[0]]
		if !ok {
			continue
		}
		ticks += int(s.UTime) + int(s.STime) + s.CUTime + s.CSTime
		queue = append(queue, t.children[queue[0]]...)
	}
	return float64(ticks) / userHZ
}

// userHZ is the kernel's clock ticks per second in /proc's times (USER_HZ,
// 100 on every Linux architecture svclab runs on; procfs assumes the same).
const userHZ = 100
