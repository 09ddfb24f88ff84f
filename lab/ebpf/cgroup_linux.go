package ebpf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/svclab/svclab/lab/cgroup"
)

// cgroupSuffix ends the name of the cgroup a run creates: <prefix>-ebpf.
const cgroupSuffix = "-ebpf"

// CgroupMount returns where cgroup2 is mounted (on this Debian host
// /sys/fs/cgroup/unified, not /sys/fs/cgroup).
func CgroupMount() (string, error) {
	mount, err := cgroup.Mount(cgroup.Unified)
	if err != nil {
		return "", fmt.Errorf("ebpf: find cgroup2: %w", err)
	}
	return mount, nil
}

// sockGroup is the cgroup2 directory Sock dataplanes share and the process's
// membership of it.
type sockGroup struct {
	path string

	mu     sync.Mutex
	refs   int    // Sock dataplanes using it (guarded by sockGroups.mu)
	joined int    // Join calls not yet left
	home   string // the process's cgroup before the first Join
}

// sockGroups are the cgroup2 groups this process made, by path: every Sock of one
// prefix shares one (a sweep keeps a lab per point alive, and the process
// can be in one cgroup only; each point's program acts on its own client
// namespace's sockets, by netns cookie, so they can all sit on one cgroup).
var sockGroups = struct {
	mu    sync.Mutex
	byDir map[string]*sockGroup
}{byDir: map[string]*sockGroup{}}

// makeCgroup creates <mount>/<prefix>-ebpf, or shares the one this process
// already made for prefix.
func makeCgroup(prefix string) (*sockGroup, error) {
	mount, err := CgroupMount()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(mount, prefix+cgroupSuffix)
	sockGroups.mu.Lock()
	defer sockGroups.mu.Unlock()
	if c, ok := sockGroups.byDir[path]; ok {
		c.refs++
		return c, nil
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil, fmt.Errorf("ebpf: create cgroup %s: %w", path, err)
	}
	c := &sockGroup{path: path, refs: 1}
	sockGroups.byDir[path] = c
	return c, nil
}

// release drops one Sock's use of c and reports whether it was the last.
func (c *sockGroup) release() bool {
	sockGroups.mu.Lock()
	defer sockGroups.mu.Unlock()
	c.refs--
	if c.refs > 0 {
		return false
	}
	delete(sockGroups.byDir, c.path)
	return true
}

// join moves the whole process into the cgroup and returns the function
// that moves it back. Joins nest: the process leaves with the last leave.
func (c *sockGroup) join() (func() error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.joined == 0 {
		home, err := cgroup.Own(cgroup.Unified)
		if err != nil {
			return nil, fmt.Errorf("ebpf: %w", err)
		}
		if err := cgroup.MoveProcess(c.path); err != nil {
			return nil, fmt.Errorf("ebpf: %w", err)
		}
		c.home = home
	}
	c.joined++
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() { err = c.leave() })
		return err
	}, nil
}

func (c *sockGroup) leave() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.joined--
	if c.joined > 0 {
		return nil
	}
	mount := filepath.Dir(c.path)
	if err := cgroup.MoveProcess(filepath.Join(mount, c.home)); err != nil {
		return fmt.Errorf("ebpf: %w", err)
	}
	return nil
}

// remove drops one Sock's use of the cgroup: the last one moves the
// process out if it is still in, then deletes the directory.
func (c *sockGroup) remove() error {
	if !c.release() {
		return nil
	}
	c.mu.Lock()
	in := c.joined > 0
	c.joined = min(c.joined, 1)
	c.mu.Unlock()
	var errs []error
	if in {
		errs = append(errs, c.leave())
	}
	if err := cgroup.Remove(c.path); err != nil {
		errs = append(errs, fmt.Errorf("ebpf: %w", err))
	}
	return errors.Join(errs...)
}
