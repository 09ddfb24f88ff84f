package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/cgroup"
	"github.com/svclab/svclab/lab/ebpf"
	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/topo"
)

// CleanupOptions say what `svclab cleanup` may remove.
type CleanupOptions struct {
	// Prefix limits cleanup to one run (e.g. "svl-3f9a"); empty means every
	// run whose owner is gone.
	Prefix string
	// Force also stops live runs and labs (their owner gets SIGTERM, then
	// their objects are removed).
	Force bool
}

// CleanupReport is what cleanup did and left.
type CleanupReport struct {
	// Removed are the objects removed, e.g. "netns svl-3f9a-node".
	Removed []string
	// Live are the runs left alone because their owner still lives.
	Live []lease.Record
	// Unowned are svclab-looking namespaces that no lease records; cleanup
	// never removes them.
	Unowned []string
}

// Cleanup removes what runs whose owner died left behind: for each lease
// file whose lock is free, its namespaces, processes (only if still the
// same process), cgroups and directories, then the lease itself. An owner
// killed a moment ago, still exiting, is waited for (dyingOwnerGrace).
// Live runs are left alone unless opts.Force. It needs root.
func Cleanup(opts CleanupOptions) (CleanupReport, error) {
	var rep CleanupReport
	if os.Geteuid() != 0 {
		return rep, ErrNeedsRoot
	}
	entries, err := lease.List()
	if err != nil {
		return rep, err
	}
	covered := map[string]bool{}
	var errs []error
	for _, e := range entries {
		if opts.Prefix != "" && e.Record.Prefix != opts.Prefix {
			covered[e.Record.Prefix] = true
			continue
		}
		covered[e.Record.Prefix] = true
		if e.Held && e.Record.Owner.Dying() {
			// Killed a moment ago (svclab ab's child dies with it): its
			// lock is freed once its files are closed.
			e.Held = !e.AwaitRelease(dyingOwnerGrace)
		}
		if e.Held && !opts.Force {
			rep.Live = append(rep.Live, e.Record)
			continue
		}
		removed, err := cleanupLease(e)
		rep.Removed = append(rep.Removed, removed...)
		errs = append(errs, err)
	}
	rep.Unowned = unownedNamespaces(covered)
	lease.Tidy()
	return rep, errors.Join(errs...)
}

// dyingOwnerGrace is how long cleanup waits for a killed owner's lock to
// be freed; a process's exit takes milliseconds, a large one's a second.
const dyingOwnerGrace = 10 * time.Second

// ErrNeedsRoot: the command changes network namespaces.
var ErrNeedsRoot = errors.New("needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) to inspect and remove lab namespaces; run it with sudo")

// cleanupLease removes one lease's objects. A live owner (Force) is asked
// to stop first and given time to tear down itself.
func cleanupLease(e lease.Entry) ([]string, error) {
	if e.Held {
		if sent, _ := e.Record.Owner.Signal(syscall.SIGTERM); sent {
			waitGone(e.Record.Owner, 30*time.Second)
		}
		if e.Record.Owner.Alive() {
			_, _ = e.Record.Owner.Signal(syscall.SIGKILL)
			waitGone(e.Record.Owner, 5*time.Second)
		}
	}
	f, ok := lease.Claim(e)
	if !ok {
		if _, err := os.Stat(e.Path); errors.Is(err, os.ErrNotExist) {
			return nil, nil // its owner removed it on the way out
		}
		return nil, fmt.Errorf("lease %s is still held", e.Path)
	}
	var removed []string
	var errs []error
	for _, p := range e.Record.Processes {
		if p.Group {
			if n, err := p.KillGroup(); err != nil {
				errs = append(errs, err)
			} else if n > 0 {
				removed = append(removed, fmt.Sprintf("process group %d (%d processes)", p.PID, n))
			}
		} else if sent, err := p.Signal(syscall.SIGKILL); sent {
			removed = append(removed, fmt.Sprintf("process %d", p.PID))
		} else if err != nil {
			errs = append(errs, err)
		}
	}
	names, err := topo.Cleanup(e.Record.Prefix)
	for _, n := range names {
		removed = append(removed, "netns "+n)
	}
	errs = append(errs, err)
	cgroups, err := ebpf.Cleanup(e.Record.Prefix)
	removed = append(removed, cgroups...)
	errs = append(errs, err)
	for _, dir := range slices.Concat(e.Record.Cgroups, e.Record.Dirs, lease.StateDirs(e.Record.Prefix)) {
		gone, err := removeRecordedDir(dir)
		removed = append(removed, gone...)
		errs = append(errs, err)
	}
	RemoveState(e.Record.Prefix)
	if err := errors.Join(errs...); err != nil {
		_ = f.Close() // keep the lease: its objects are not all gone
		return removed, fmt.Errorf("run %s: %w (run `svclab cleanup --prefix %s` again)", e.Record.Prefix, err, e.Record.Prefix)
	}
	return removed, lease.Forget(e, f)
}

func waitGone(p lease.Process, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline) && p.Alive(); {
		time.Sleep(100 * time.Millisecond)
	}
}

// removeRecordedDir removes a directory a lease recorded, only where svclab
// makes them (temp dirs, /dev/shm, /run/svclab, cgroup trees) and only if
// its name carries svclab's prefix, and says what it removed. A cgroup
// directory is removed with rmdir, after the processes still in it (the
// run's children) are killed and have exited.
func removeRecordedDir(dir string) ([]string, error) {
	clean := filepath.Clean(dir)
	if !strings.HasPrefix(filepath.Base(clean), topo.PrefixBase) {
		return nil, fmt.Errorf("refusing to remove %s: not a svclab name", dir)
	}
	if _, err := os.Lstat(clean); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	switch {
	case strings.HasPrefix(clean, "/sys/fs/cgroup/"):
		killed, err := cgroup.KillAndRemove(clean)
		removed := cgroup.KilledNotes(clean, killed)
		if err != nil {
			return removed, err
		}
		return append(removed, "dir "+dir), nil
	case strings.HasPrefix(clean, os.TempDir()+"/"), strings.HasPrefix(clean, "/dev/shm/"), strings.HasPrefix(clean, lease.Dir+"/"):
		if err := os.RemoveAll(clean); err != nil {
			return nil, fmt.Errorf("remove %s: %w", dir, err)
		}
		return []string{"dir " + dir}, nil
	}
	return nil, fmt.Errorf("refusing to remove %s: outside the temp, shm and %s directories", dir, lease.Dir)
}

// unownedNamespaces lists svclab-prefixed namespaces that no lease covers.
func unownedNamespaces(covered map[string]bool) []string {
	names, err := netns.List(topo.PrefixBase)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		owned := false
		for p := range covered {
			if topo.BelongsToRun(n, p) {
				owned = true
				break
			}
		}
		if !owned {
			out = append(out, n)
		}
	}
	return out
}
