package ebpf

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// cgroupSuffix ends the name of the cgroup a run creates: <prefix>-ebpf.
const cgroupSuffix = "-ebpf"

// CgroupMount returns where cgroup2 is mounted, read from
// /proc/self/mountinfo (on this Debian host /sys/fs/cgroup/unified, not
// /sys/fs/cgroup).
func CgroupMount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("ebpf: find cgroup2: %w", err)
	}
	defer f.Close()
	return parseCgroupMount(bufio.NewScanner(f))
}

// parseCgroupMount finds the first cgroup2 mount point in mountinfo lines:
// "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER".
func parseCgroupMount(s *bufio.Scanner) (string, error) {
	for s.Scan() {
		fields := strings.Fields(s.Text())
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return unescapeMount(fields[4]), nil
			}
		}
	}
	if err := s.Err(); err != nil {
		return "", fmt.Errorf("ebpf: read mountinfo: %w", err)
	}
	return "", errors.New("ebpf: cgroup2 is not mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+3 < len(p) {
			if v, err := strconv.ParseUint(p[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// ownCgroup is the calling process's cgroup2 path relative to the mount,
// from the "0::PATH" line of /proc/self/cgroup.
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("ebpf: read own cgroup: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return rest, nil
		}
	}
	return "", errors.New("ebpf: the process has no cgroup2 membership")
}

// cgroup is the directory Sock dataplanes share and the process's
// membership of it.
type cgroup struct {
	path string

	mu     sync.Mutex
	refs   int    // Sock dataplanes using it (guarded by cgroups.mu)
	joined int    // Join calls not yet left
	home   string // the process's cgroup before the first Join
}

// cgroups are the cgroups this process made, by path: every Sock of one
// prefix shares one (a sweep keeps a lab per point alive, and the process
// can be in one cgroup only; each point's program acts on its own client
// namespace's sockets, by netns cookie, so they can all sit on one cgroup).
var cgroups = struct {
	mu    sync.Mutex
	byDir map[string]*cgroup
}{byDir: map[string]*cgroup{}}

// makeCgroup creates <mount>/<prefix>-ebpf, or shares the one this process
// already made for prefix.
func makeCgroup(prefix string) (*cgroup, error) {
	mount, err := CgroupMount()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(mount, prefix+cgroupSuffix)
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	if c, ok := cgroups.byDir[path]; ok {
		c.refs++
		return c, nil
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil, fmt.Errorf("ebpf: create cgroup %s: %w", path, err)
	}
	c := &cgroup{path: path, refs: 1}
	cgroups.byDir[path] = c
	return c, nil
}

// release drops one Sock's use of c and reports whether it was the last.
func (c *cgroup) release() bool {
	cgroups.mu.Lock()
	defer cgroups.mu.Unlock()
	c.refs--
	if c.refs > 0 {
		return false
	}
	delete(cgroups.byDir, c.path)
	return true
}

// join moves the whole process into the cgroup and returns the function
// that moves it back. Joins nest: the process leaves with the last leave.
func (c *cgroup) join() (func() error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.joined == 0 {
		home, err := ownCgroup()
		if err != nil {
			return nil, err
		}
		if err := writeProcs(c.path, os.Getpid()); err != nil {
			return nil, err
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

func (c *cgroup) leave() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.joined--
	if c.joined > 0 {
		return nil
	}
	mount := filepath.Dir(c.path)
	return writeProcs(filepath.Join(mount, c.home), os.Getpid())
}

// remove drops one Sock's use of the cgroup: the last one moves the
// process out if it is still in, then deletes the directory.
func (c *cgroup) remove() error {
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
	if err := os.Remove(c.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("ebpf: remove cgroup %s: %w", c.path, err))
	}
	return errors.Join(errs...)
}

// writeProcs moves process pid (all its threads) into the cgroup at dir.
func writeProcs(dir string, pid int) error {
	f := filepath.Join(dir, "cgroup.procs")
	if err := os.WriteFile(f, []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("ebpf: move process %d into cgroup %s: %w", pid, dir, err)
	}
	return nil
}
