package procstat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/procfs"
	"github.com/svclab/svclab/lab/cgroup"
)

// memoryCgroup is the memory group whose charges ReadKernelMemory reads as
// the process's own: every kernel object this process and its children
// allocate with memory accounting (nf_tables' and x_tables' rules, BPF
// maps) is charged to it, whatever other processes do meanwhile. It is
// either a cgroup v1 group the process made and moved into
// (JoinMemoryCgroup; memory.kmem.usage_in_bytes), or, on a cgroup v2-only
// host, the group the process was already in (WatchOwnMemoryCgroup;
// memory.stat's kernel line).
type memoryCgroup struct {
	path    string // the group's directory
	root    string // the v1 hierarchy's root group, whose count is every group's charges ("" for v2)
	home    string // the directory of the group the process left (v1)
	watched bool   // the process's own cgroup v2 group, not one it made
	joins   int    // Join or Watch calls not yet left
}

// joined is the process's own memory group; a process is in one at a time.
var joined = struct {
	mu sync.Mutex
	cg *memoryCgroup
}{}

// kmemUsageFile is the v1 memory controller's count of the kernel memory
// charged to a group (slab objects, vmalloc and per-CPU allocations).
const kmemUsageFile = "memory.kmem.usage_in_bytes"

// MemoryCgroupPath is where JoinMemoryCgroup would make the group named
// name: under the cgroup v1 memory controller's mount, inside the group the
// process is in now (so that group's limits still hold). It fails where
// there is no v1 memory controller (a host with cgroup v2 only).
func MemoryCgroupPath(name string) (string, error) {
	home, err := ownMemoryGroupDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, name), nil
}

// JoinMemoryCgroup makes the memory group at path (MemoryCgroupPath) and
// moves the whole process into it, so ReadKernelMemory also reads what the
// process itself has charged to the kernel. Joins nest: a process that has
// joined a group keeps it (a second run in the same process shares it) and
// leaves with the last LeaveMemoryCgroup.
func JoinMemoryCgroup(path string) error {
	joined.mu.Lock()
	defer joined.mu.Unlock()
	if joined.cg != nil {
		joined.cg.joins++
		return nil
	}
	home, err := ownMemoryGroupDir()
	if err != nil {
		return err
	}
	root, err := cgroup.Mount(memoryController)
	if err != nil {
		return fmt.Errorf("find the memory cgroup hierarchy: %w", err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return fmt.Errorf("create memory cgroup %s: %w", path, err)
	}
	cg := &memoryCgroup{path: path, root: root, home: home, joins: 1}
	if _, err := cg.kernelBytes(); err != nil { // a kernel without kmem accounting
		return errors.Join(err, cgroup.Remove(path))
	}
	if err := cgroup.MoveProcess(path); err != nil {
		return errors.Join(err, cgroup.Remove(path))
	}
	joined.cg = cg
	return nil
}

// LeaveMemoryCgroup undoes one JoinMemoryCgroup or WatchOwnMemoryCgroup;
// the last one moves the process back to the group it came from and
// removes the directory (the kernel keeps what is still charged to it with
// the parent), or, for a watched group, stops reading it.
func LeaveMemoryCgroup() error {
	joined.mu.Lock()
	defer joined.mu.Unlock()
	cg := joined.cg
	if cg == nil {
		return nil
	}
	if cg.joins--; cg.joins > 0 {
		return nil
	}
	joined.cg = nil
	if cg.watched {
		return nil
	}
	if err := cgroup.MoveProcess(cg.home); err != nil {
		return err
	}
	return cgroup.Remove(cg.path)
}

// ownKernelBytes is the kernel memory charged to the process's own group,
// and false when it has not joined one.
func ownKernelBytes() (int64, bool, error) {
	joined.mu.Lock()
	cg := joined.cg
	joined.mu.Unlock()
	if cg == nil {
		return 0, false, nil
	}
	n, err := cg.kernelBytes()
	return n, err == nil, err
}

// allChargedKernelBytes is the kernel memory charged to every group of the
// hierarchy the process's own group is in (the v1 root group's count, which
// its children's charges add to), and false when it has not joined a v1
// group: cgroup2's root group has no memory.stat to read it from.
func allChargedKernelBytes() (int64, bool, error) {
	joined.mu.Lock()
	cg := joined.cg
	joined.mu.Unlock()
	if cg == nil || cg.root == "" {
		return 0, false, nil
	}
	n, err := readKmemUsage(cg.root)
	return n, err == nil, err
}

// ownPageTables is the page tables of the own group's processes (their
// VmPTE; one that exits meanwhile counts none), and false when the process
// has joined no group whose processes it can list (ownGroupProcesses).
func ownPageTables() (int64, bool) {
	pids, err := ownGroupProcesses()
	if err != nil || len(pids) == 0 {
		return 0, false
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, false
	}
	var sum int64
	for _, pid := range pids {
		p, err := fs.Proc(pid)
		if err != nil {
			continue
		}
		if st, err := p.NewStatus(); err == nil {
			sum += int64(st.VmPTE)
		}
	}
	return sum, true
}

// ownGroupProcesses are the processes in the memory group this process
// has joined (JoinMemoryCgroup): itself, what it started and what those
// started, wherever they were adopted. None when it has joined none, or
// only watches a cgroup2 group it was already in (WatchOwnMemoryCgroup),
// which other programs may share.
func ownGroupProcesses() ([]int, error) {
	joined.mu.Lock()
	cg := joined.cg
	joined.mu.Unlock()
	if cg == nil || cg.watched {
		return nil, nil
	}
	return cgroup.Processes(cg.path)
}

// kernelBytes reads the kernel memory charged to the group: its
// memory.kmem.usage_in_bytes (v1) or memory.stat (v2).
func (cg *memoryCgroup) kernelBytes() (int64, error) {
	if cg.watched {
		return cg.statKernelBytes()
	}
	return readKmemUsage(cg.path)
}

// readKmemUsage reads the v1 group dir's kmemUsageFile.
func readKmemUsage(dir string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(dir, kmemUsageFile))
	if err != nil {
		return 0, fmt.Errorf("read the kernel memory of cgroup %s: %w", dir, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cgroup %s's %s: %w", dir, kmemUsageFile, err)
	}
	return n, nil
}

// memoryController names the cgroup v1 controller whose groups count
// kernel memory.
const memoryController = "memory"

// ownMemoryGroupDir is the directory of the memory group the process is in.
func ownMemoryGroupDir() (string, error) {
	dir, err := cgroup.OwnDir(memoryController)
	if err != nil {
		return "", fmt.Errorf("find the memory cgroup: %w", err)
	}
	return dir, nil
}

// OwnMemoryCgroup names the memory group ReadKernelMemory reads as the
// process's own: "cgroup v1 group DIR" (JoinMemoryCgroup), "cgroup2 group
// DIR" (WatchOwnMemoryCgroup), or "" when there is none and a load's
// kernel memory growth goes unchecked.
func OwnMemoryCgroup() string {
	joined.mu.Lock()
	defer joined.mu.Unlock()
	switch {
	case joined.cg == nil:
		return ""
	case joined.cg.watched:
		return "cgroup2 group " + joined.cg.path
	default:
		return "cgroup v1 group " + joined.cg.path
	}
}
