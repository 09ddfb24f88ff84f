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

	"github.com/svclab/svclab/lab/cgroup"
)

// memoryStatFile is cgroup v2's breakdown of what is charged to a group.
const memoryStatFile = "memory.stat"

// WatchOwnMemoryCgroup is JoinMemoryCgroup for a host with cgroup v2 only
// (most current Kubernetes nodes): the process makes no group (that would
// need the memory controller enabled in its parent's subtree, a change to
// the host) but reads the cgroup2 group it is already in, whose
// memory.stat counts what the group's processes charged to the kernel. A
// container's group holds svclab alone; a login session's holds its shell
// too, mostly idle. It fails where the group has no memory controller
// enabled (no memory.stat). Watches nest like joins and end with
// LeaveMemoryCgroup; it returns the group's directory.
func WatchOwnMemoryCgroup() (string, error) {
	joined.mu.Lock()
	defer joined.mu.Unlock()
	if joined.cg != nil {
		joined.cg.joins++
		return joined.cg.path, nil
	}
	dir, err := cgroup.OwnDir(cgroup.Unified)
	if err != nil {
		return "", fmt.Errorf("find the process's cgroup2 group: %w", err)
	}
	cg := &memoryCgroup{path: dir, watched: true, joins: 1}
	if _, err := cg.kernelBytes(); err != nil {
		return "", err
	}
	joined.cg = cg
	return dir, nil
}

// statKernelBytes reads the kernel memory charged to a cgroup v2 group
// from its memory.stat.
func (cg *memoryCgroup) statKernelBytes() (int64, error) {
	f, err := os.Open(filepath.Join(cg.path, memoryStatFile))
	if err != nil {
		return 0, fmt.Errorf("read the kernel memory of cgroup %s (is its memory controller enabled?): %w", cg.path, err)
	}
	defer f.Close()
	n, err := parseKernelStat(f)
	if err != nil {
		return 0, fmt.Errorf("cgroup %s's %s: %w", cg.path, memoryStatFile, err)
	}
	return n, nil
}

// kernelStatParts are the lines of memory.stat whose sum is the group's
// kernel memory where the kernel (before Linux 5.18) has no "kernel" line:
// slab objects, per-CPU allocations, vmalloc (5.19+ only, so absent where
// it would be needed), kernel stacks and page tables.
var kernelStatParts = []string{"slab", "percpu", "vmalloc", "kernel_stack", "pagetables"}

// errNoKernelStat: memory.stat has neither a kernel line nor its parts.
var errNoKernelStat = errors.New("no kernel memory line (kernel, or slab and percpu)")

// parseKernelStat reads memory.stat's "NAME BYTES" lines: the "kernel"
// line (Linux 5.18+: all the kernel memory charged to the group) or else
// the sum of kernelStatParts.
func parseKernelStat(r io.Reader) (int64, error) {
	s := bufio.NewScanner(r)
	var parts int64
	found := false
	for s.Scan() {
		name, value, ok := strings.Cut(s.Text(), " ")
		if !ok || (name != "kernel" && !slices.Contains(kernelStatParts, name)) {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("line %q: %w", s.Text(), err)
		}
		if name == "kernel" {
			return n, nil
		}
		parts, found = parts+n, found || name == "slab"
	}
	if err := s.Err(); err != nil {
		return 0, err
	}
	if !found {
		return 0, errNoKernelStat
	}
	return parts, nil
}
