package procstat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// memoryCgroup is the cgroup v1 memory group this process made for itself
// and moved into (JoinMemoryCgroup): every kernel object this process and
// its children allocate with memory accounting (nf_tables' and x_tables'
// rules, BPF maps) is charged to it, and memory.kmem.usage_in_bytes says
// how much, whatever other processes do meanwhile.
type memoryCgroup struct {
	path  string // the group's directory
	home  string // the directory of the group the process left
	joins int    // JoinMemoryCgroup calls not yet left
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
	mount, own, err := memoryHierarchy()
	if err != nil {
		return "", err
	}
	return filepath.Join(mount, own, name), nil
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
	if err := os.Mkdir(path, 0o755); err != nil {
		return fmt.Errorf("create memory cgroup %s: %w", path, err)
	}
	cg := &memoryCgroup{path: path, home: home, joins: 1}
	if _, err := cg.kernelBytes(); err != nil { // a kernel without kmem accounting
		return errors.Join(err, removeGroup(path))
	}
	if err := moveProcess(path); err != nil {
		return errors.Join(err, removeGroup(path))
	}
	joined.cg = cg
	return nil
}

// LeaveMemoryCgroup undoes one JoinMemoryCgroup; the last one moves the
// process back to the group it came from and removes the directory (the
// kernel keeps what is still charged to it with the parent).
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
	if err := moveProcess(cg.home); err != nil {
		return err
	}
	return removeGroup(cg.path)
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

// kernelBytes reads the group's memory.kmem.usage_in_bytes.
func (cg *memoryCgroup) kernelBytes() (int64, error) {
	b, err := os.ReadFile(filepath.Join(cg.path, kmemUsageFile))
	if err != nil {
		return 0, fmt.Errorf("read the kernel memory of cgroup %s: %w", cg.path, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cgroup %s's %s: %w", cg.path, kmemUsageFile, err)
	}
	return n, nil
}

func moveProcess(dir string) error {
	pid := os.Getpid()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("move process %d into memory cgroup %s: %w", pid, dir, err)
	}
	return nil
}

func removeGroup(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove memory cgroup %s: %w", path, err)
	}
	return nil
}

// ownMemoryGroupDir is the directory of the memory group the process is in.
func ownMemoryGroupDir() (string, error) {
	mount, own, err := memoryHierarchy()
	if err != nil {
		return "", err
	}
	return filepath.Join(mount, own), nil
}

// memoryHierarchy is the v1 memory controller's mount point and the
// process's group in it.
func memoryHierarchy() (mount, own string, err error) {
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("find the memory cgroup: %w", err)
	}
	defer mi.Close()
	if mount, err = parseMemoryMount(mi); err != nil {
		return "", "", err
	}
	cg, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", "", fmt.Errorf("find the memory cgroup: %w", err)
	}
	defer cg.Close()
	own, err = parseMemoryGroup(cg)
	return mount, own, err
}

// errNoMemoryController: no cgroup v1 hierarchy has the memory controller.
var errNoMemoryController = errors.New("no cgroup v1 memory controller is mounted (cgroup v2 only, or none)")

// parseMemoryMount finds the mount point of the cgroup v1 hierarchy whose
// super options name the memory controller, in mountinfo lines: "ID PARENT
// MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER".
func parseMemoryMount(r io.Reader) (string, error) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		i := slices.Index(fields, "-")
		if i < 5 || i+3 >= len(fields) || fields[i+1] != "cgroup" {
			continue
		}
		for _, opt := range strings.Split(fields[i+3], ",") {
			if opt == "memory" {
				return fields[4], nil
			}
		}
	}
	if err := s.Err(); err != nil {
		return "", fmt.Errorf("read mountinfo: %w", err)
	}
	return "", errNoMemoryController
}

// parseMemoryGroup finds the process's group in the memory hierarchy in
// /proc/self/cgroup lines "ID:CONTROLLERS:PATH".
func parseMemoryGroup(r io.Reader) (string, error) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				return parts[2], nil
			}
		}
	}
	if err := s.Err(); err != nil {
		return "", fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	return "", errNoMemoryController
}
