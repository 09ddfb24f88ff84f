package lease

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Entry is one lease file found on disk.
type Entry struct {
	Path   string
	Record Record
	// Held is true while its owner lives.
	Held bool
}

// List reads every lease file, sorted by prefix. A file that cannot be
// parsed is reported with an empty Record and its Prefix taken from the
// file name.
func List() ([]Entry, error) {
	matches, err := files()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, path := range matches {
		e, err := read(path)
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Record.Prefix < out[j].Record.Prefix })
	return out, nil
}

// Live lists the records of the lease files whose owner process is
// alive, sorted by prefix, without touching their locks: a poll that took
// a lock, however briefly, could make a run's Acquire of a file it has
// just created fail (List's Held does that, which `svclab cleanup` can
// afford once, a run polling every few seconds cannot). A file that
// cannot be read or parsed (an Acquire under way, a lease released
// meanwhile) is skipped.
func Live() ([]Record, error) {
	matches, err := files()
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, path := range matches {
		if r, ok := readRecord(path); ok && r.Owner.PID != 0 && r.Owner.Alive() {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Prefix < out[j].Prefix })
	return out, nil
}

func read(path string) (Entry, error) {
	e := Entry{Path: path}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return e, nil
	}
	if err != nil {
		return e, fmt.Errorf("open lease %s: %w", path, err)
	}
	defer f.Close()
	e.Held = held(f)
	e.Record, _ = readRecord(path)
	if e.Record.Prefix == "" {
		e.Record.Prefix = strings.TrimSuffix(filepath.Base(path), suffix)
	}
	return e, nil
}

// files are the lease files in Dir.
func files() ([]string, error) { return filepath.Glob(filepath.Join(Dir, "*"+suffix)) }

// readRecord reads and parses a lease file; false when it is gone, cannot
// be read or is not (yet) a whole record.
func readRecord(path string) (Record, bool) {
	var r Record
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &r) != nil {
		return Record{}, false
	}
	return r, true
}

// held reports whether another process holds f's lock: a free lock is
// taken and dropped at once.
func held(f *os.File) bool {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}

// AwaitRelease waits up to d for e's lock to be free (or its file gone)
// and reports whether it is.
func (e Entry) AwaitRelease(d time.Duration) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		f, err := os.Open(e.Path)
		if errors.Is(err, os.ErrNotExist) {
			return true
		}
		if err == nil {
			free := !held(f)
			f.Close()
			if free {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// Claim takes the lock of a lease whose owner is gone, so that no one
// else cleans it up at the same time; Forget removes it afterwards.
func Claim(e Entry) (*os.File, bool) {
	f, err := os.OpenFile(e.Path, os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return f, true
}

// Forget removes a claimed lease file and drops its lock.
func Forget(e Entry, f *os.File) error {
	err := os.Remove(e.Path)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	err = errors.Join(err, f.Close())
	Tidy()
	return err
}
