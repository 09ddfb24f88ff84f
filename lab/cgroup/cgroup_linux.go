package cgroup

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
	"syscall"
	"time"
)

// Unified asks for cgroup2 where a controller is asked for: its hierarchy
// carries every enabled controller, so none is named.
const Unified = ""

// ErrNotMounted says the hierarchy asked for is not there: no cgroup v1
// hierarchy carries the controller (a cgroup v2-only host, say), or cgroup2
// is not mounted, or the process is in no group of it.
var ErrNotMounted = errors.New("cgroup hierarchy not mounted")

// Mount is where the hierarchy of controller is mounted (the cgroup v1
// hierarchy whose super options name it; cgroup2's for Unified), read from
// /proc/self/mountinfo.
func Mount(controller string) (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("find the %s: %w", hierarchyName(controller), err)
	}
	defer f.Close()
	return parseMount(f, controller)
}

// Own is the process's group in the hierarchy of controller, relative to
// its mount, read from /proc/self/cgroup.
func Own(controller string) (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("find the process's group in the %s: %w", hierarchyName(controller), err)
	}
	defer f.Close()
	return parseGroup(f, controller)
}

// OwnDir is the directory of the process's group in the hierarchy of
// controller: Mount joined with Own.
func OwnDir(controller string) (string, error) {
	mount, err := Mount(controller)
	if err != nil {
		return "", err
	}
	own, err := Own(controller)
	if err != nil {
		return "", err
	}
	return filepath.Join(mount, own), nil
}

// procsFile lists a group's processes, and moves one in when written.
const procsFile = "cgroup.procs"

// MoveProcess moves this process, all its threads, into the group at dir;
// the children it starts afterwards are born there.
func MoveProcess(dir string) error {
	pid := os.Getpid()
	if err := os.WriteFile(filepath.Join(dir, procsFile), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("move process %d into cgroup %s: %w", pid, dir, err)
	}
	return nil
}

// Processes are the processes in the group at dir (not its subgroups'):
// a process stays in its group when its parent exits and another adopts it.
func Processes(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, procsFile))
	if err != nil {
		return nil, fmt.Errorf("list the processes of cgroup %s: %w", dir, err)
	}
	var pids []int
	for _, field := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(field)
		if err != nil {
			return nil, fmt.Errorf("cgroup %s's %s: %w", dir, procsFile, err)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// busyWait is how long Remove waits for a group's last processes to leave
// it. A process killed a moment ago still counts in its group until the
// kernel has finished its exit: milliseconds, more on a loaded machine.
var busyWait = 5 * time.Second

// Remove deletes the group at dir once no process is left in it; a group
// already gone is not an error. While the kernel says the group is busy
// (EBUSY: a process in it is still exiting) Remove tries again, for up to
// busyWait; then the error names the processes still in it.
func Remove(dir string) error {
	deadline := time.Now().Add(busyWait)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 200*time.Millisecond) {
		err := syscall.Rmdir(dir)
		switch {
		case err == nil, errors.Is(err, syscall.ENOENT):
			return nil
		case !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline):
			return removeError(dir, err)
		}
		time.Sleep(pause)
	}
}

// KillAndRemove removes the group at dir of a run that is over: it kills
// every process still in it (children the run started, which are born in
// its groups and outlive a killed run), then removes it (Remove waits for
// them to exit). It returns the processes it killed; a group already gone
// is not an error.
func KillAndRemove(dir string) ([]int, error) {
	pids, err := Processes(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var killed []int
	for _, pid := range pids {
		if syscall.Kill(pid, syscall.SIGKILL) == nil { // ESRCH: it exited meanwhile
			killed = append(killed, pid)
		}
	}
	return killed, Remove(dir)
}

// KilledNotes are cleanup's notes of the processes KillAndRemove killed in
// the group at dir: "process <pid> (in cgroup <dir>)".
func KilledNotes(dir string, pids []int) []string {
	notes := make([]string, 0, len(pids))
	for _, pid := range pids {
		notes = append(notes, fmt.Sprintf("process %d (in cgroup %s)", pid, dir))
	}
	return notes
}

// removeError says why the group at dir could not be removed, with the
// processes still in it when it was busy.
func removeError(dir string, err error) error {
	if pids, perr := Processes(dir); errors.Is(err, syscall.EBUSY) && perr == nil && len(pids) > 0 {
		return fmt.Errorf("remove cgroup %s: processes %v are still in it: %w", dir, pids, err)
	}
	return fmt.Errorf("remove cgroup %s: %w", dir, err)
}

// hierarchyName names the hierarchy of controller in messages.
func hierarchyName(controller string) string {
	if controller == Unified {
		return "cgroup2 hierarchy"
	}
	return "cgroup v1 " + controller + " hierarchy"
}

// notMounted is ErrNotMounted for the hierarchy of controller.
func notMounted(controller string) error {
	if controller == Unified {
		return fmt.Errorf("%w: cgroup2 is not mounted", ErrNotMounted)
	}
	return fmt.Errorf("%w: no cgroup v1 hierarchy has the %s controller (cgroup v2 only, or none)", ErrNotMounted, controller)
}

// parseMount finds the mount point of the hierarchy of controller in
// mountinfo lines: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] -
// FSTYPE SOURCE SUPER".
func parseMount(r io.Reader, controller string) (string, error) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		i := slices.Index(fields, "-")
		if i >= 5 && carries(fields[i+1:], controller) {
			return unescapeMount(fields[4]), nil
		}
	}
	if err := s.Err(); err != nil {
		return "", fmt.Errorf("read mountinfo: %w", err)
	}
	return "", notMounted(controller)
}

// carries says whether a mount whose fields after "-" are fs (FSTYPE
// SOURCE SUPER) is the hierarchy of controller.
func carries(fs []string, controller string) bool {
	if controller == Unified {
		return len(fs) > 0 && fs[0] == "cgroup2"
	}
	return len(fs) > 2 && fs[0] == "cgroup" && slices.Contains(strings.Split(fs[2], ","), controller)
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

// parseGroup finds the process's group in the hierarchy of controller in
// /proc/self/cgroup lines "ID:CONTROLLERS:PATH" (cgroup2's is "0::PATH").
func parseGroup(r io.Reader, controller string) (string, error) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if controller == Unified && parts[0] == "0" && parts[1] == "" {
			return parts[2], nil
		}
		if controller != Unified && slices.Contains(strings.Split(parts[1], ","), controller) {
			return parts[2], nil
		}
	}
	if err := s.Err(); err != nil {
		return "", fmt.Errorf("read /proc/self/cgroup: %w", err)
	}
	return "", notMounted(controller)
}
