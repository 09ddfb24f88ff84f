package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/topo"
)

func statePath(run string) string { return filepath.Join(StateDir, run+".json") }

// logPath is where the `svclab up` daemon's output goes.
func logPath(run string) string { return filepath.Join(StateDir, run+".log") }

func validRunPrefix(run string) bool {
	return strings.HasPrefix(run, topo.PrefixBase) && topo.ValidPrefix(run) && !strings.ContainsAny(run, "/.")
}

// SaveState records a running lab's state (the `svclab up` daemon's, once
// its lab answers), atomically.
func SaveState(st UpState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(st.Run) + ".tmp"
	if err := lease.InDir(func() error { return os.WriteFile(tmp, data, 0o644) }); err != nil {
		return fmt.Errorf("write lab state %s: %w", tmp, err)
	}
	return os.Rename(tmp, statePath(st.Run))
}

// LoadState reads a running lab's state.
func LoadState(run string) (UpState, error) {
	var st UpState
	if err := checkRunName(run); err != nil {
		return st, err
	}
	data, err := os.ReadFile(statePath(run))
	if errors.Is(err, os.ErrNotExist) {
		return st, fmt.Errorf("lab %s is not running (no %s): %w", run, statePath(run), ErrNoSuchLab)
	}
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(data, &st)
}

// RemoveState removes a lab's state and its daemon's log.
func RemoveState(run string) {
	_ = os.Remove(statePath(run))
	_ = os.Remove(statePath(run) + ".tmp")
	_ = os.Remove(logPath(run))
	lease.Tidy()
}

// RunningLabs lists the labs `svclab up` left running.
func RunningLabs() ([]string, error) {
	entries, err := lease.List()
	if err != nil {
		return nil, err
	}
	var runs []string
	for _, e := range entries {
		if e.Record.Kind == lease.KindUp && e.Held {
			runs = append(runs, e.Record.Prefix)
		}
	}
	return runs, nil
}

// Down stops the lab run: it sends SIGTERM to the daemon that holds the
// lab's lease (only if it is still that process: PID and start time), waits
// for it to tear the lab down, and removes whatever it left.
func Down(run string) ([]string, error) {
	if os.Geteuid() != 0 {
		return nil, ErrNeedsRoot
	}
	if err := checkRunName(run); err != nil {
		return nil, err
	}
	var found *lease.Entry
	entries, err := lease.List()
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if entries[i].Record.Prefix == run && entries[i].Record.Kind == lease.KindUp {
			found = &entries[i]
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no lab %s is running (no lease in %s): %w", run, lease.Dir, ErrNoSuchLab)
	}
	if found.Held {
		if _, err := found.Record.Owner.Signal(syscall.SIGTERM); err != nil {
			return nil, err
		}
		waitGone(found.Record.Owner, 60*time.Second)
	}
	rep, err := Cleanup(CleanupOptions{Prefix: run})
	return rep.Removed, err
}

// ValidRunName reports whether run is a run name like svl-3f9a.
func ValidRunName(run string) bool { return validRunPrefix(run) }
