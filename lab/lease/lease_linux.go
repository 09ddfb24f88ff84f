package lease

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Dir holds the lease files.
const Dir = "/run/svclab"

// suffix ends every lease file's name.
const suffix = ".lease"

// The kinds of lease, as a lease file's kind names them.
const (
	// KindRun is a measuring run's lease: the runner's labs on this kernel
	// and a user-mode-linux guest's host side.
	KindRun = "run"
	// KindUp is a lab left running by svclab up.
	KindUp = "up"
	// KindTest is a privileged test's lab.
	KindTest = "test"
	// KindVerifyTrace is verify-trace's scratch labs.
	KindVerifyTrace = "verify-trace"
	// KindMigrateVerify is migrate's scratch labs, which prove its changes
	// in the kernel.
	KindMigrateVerify = "migrate-verify"
)

// Record is what a lease file says.
type Record struct {
	// Prefix is the run prefix every namespace of the run starts with.
	Prefix string `json:"prefix"`
	// Kind is one of the Kind constants (an older svclab's file may have
	// none: a run).
	Kind string `json:"kind"`
	// Owner is the process holding the lease.
	Owner Process `json:"owner"`
	// Created is when the lease was taken (RFC 3339).
	Created string `json:"created"`
	// Processes are processes the owner started that must not outlive it
	// (e.g. a user-mode-linux guest's process group).
	Processes []Process `json:"processes,omitempty"`
	// Dirs are directories the owner made (temp dirs, run state).
	Dirs []string `json:"dirs,omitempty"`
	// Cgroups are cgroup directories the owner made.
	Cgroups []string `json:"cgroups,omitempty"`
}

// Lease is a held lease.
type Lease struct {
	mu   sync.Mutex
	f    *os.File
	path string
	rec  Record
}

// Path is the lease file of prefix.
func Path(prefix string) string { return filepath.Join(Dir, prefix+suffix) }

// Acquire takes the lease of prefix for this process. It fails if another
// live process holds it.
func Acquire(prefix, kind string) (*Lease, error) {
	path := Path(prefix)
	var f *os.File
	err := InDir(func() (err error) {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("open lease %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lease %s is held by a live process: %w", path, err)
	}
	self, err := Self()
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &Lease{f: f, path: path, rec: Record{Prefix: prefix, Kind: kind, Owner: self, Created: time.Now().UTC().Format(time.RFC3339)}}
	if err := l.write(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// Prefix is the lease's run prefix.
func (l *Lease) Prefix() string { return l.rec.Prefix }

// AddProcess records a process (by PID, with its start time) before the
// owner relies on it; group means its whole process group.
func (l *Lease) AddProcess(pid int, group bool) error {
	p, err := ProcessOf(pid)
	if err != nil {
		return err
	}
	p.Group = group
	return l.update(func(r *Record) { r.Processes = append(r.Processes, p) })
}

// AddDir records a directory the owner is about to create.
func (l *Lease) AddDir(path string) error {
	return l.update(func(r *Record) { r.Dirs = append(r.Dirs, path) })
}

// AddStarted records what a program started elsewhere leaves: its
// directories, and its process group unless pgid is 0 (the shape of
// lab/uml's Spec.Started, which a user-mode-linux guest's callers pass).
func (l *Lease) AddStarted(pgid int, dirs []string) error {
	for _, d := range dirs {
		if err := l.AddDir(d); err != nil {
			return err
		}
	}
	if pgid == 0 {
		return nil
	}
	return l.AddProcess(pgid, true)
}

// AddCgroup records a cgroup directory the owner is about to create.
func (l *Lease) AddCgroup(path string) error {
	return l.update(func(r *Record) { r.Cgroups = append(r.Cgroups, path) })
}

func (l *Lease) update(change func(*Record)) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	change(&l.rec)
	return l.write()
}

// write replaces the file's contents with the record, durably.
func (l *Lease) write() error {
	data, err := json.MarshalIndent(l.rec, "", "  ")
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write lease %s: %w", l.path, err)
	}
	if _, err := l.f.WriteAt(append(data, '\n'), 0); err != nil {
		return fmt.Errorf("write lease %s: %w", l.path, err)
	}
	return l.f.Sync()
}

// Release removes the lease file and drops the lock. Call it only once
// everything the lease records is gone.
func (l *Lease) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	err = errors.Join(err, l.f.Close())
	Tidy()
	return err
}

// Abandon drops the lock but keeps the lease file: some of what it records
// could not be removed, and `svclab cleanup` will find it.
func (l *Lease) Abandon() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.f.Close()
}
