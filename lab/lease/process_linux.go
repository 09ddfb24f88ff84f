package lease

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Process names a process so that a reused PID is never mistaken for it:
// its PID and its start time in clock ticks since boot (/proc/PID/stat).
type Process struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
	// Group: the process's whole process group (PGID = PID) is meant.
	Group bool `json:"group,omitempty"`
}

// Self is this process.
func Self() (Process, error) { return ProcessOf(os.Getpid()) }

// ProcessOf reads pid's start time.
func ProcessOf(pid int) (Process, error) {
	st, err := readStat(pid)
	if err != nil {
		return Process{}, err
	}
	return Process{PID: pid, Start: st.start}, nil
}

// Alive reports whether p is still the same running process.
func (p Process) Alive() bool {
	st, err := readStat(p.PID)
	return err == nil && st.start == p.Start && st.state != "Z"
}

// Dying reports whether p, still holding its files, is on its way out: it
// is a zombie leader whose other threads still exit, the kernel has begun
// its exit (PF_EXITING), or a SIGKILL waits for it. A killed process frees
// its flock(2) locks only when its files are closed, moments after it was
// killed (a process killed because its parent died, Pdeathsig, is killed
// only as the parent exits).
func (p Process) Dying() bool {
	st, err := readStat(p.PID)
	if err != nil || st.start != p.Start {
		return false
	}
	return st.state == "Z" || st.state == "X" || st.flags&pfExiting != 0 || killPending(p.PID)
}

// killPending reports whether SIGKILL is pending for pid's thread group or
// its main thread (/proc/PID/status ShdPnd and SigPnd).
func killPending(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	return pendingHas(string(data), syscall.SIGKILL)
}

// pendingHas reports whether a /proc/PID/status text shows sig in its
// ShdPnd or SigPnd mask (hexadecimal, bit sig-1).
func pendingHas(status string, sig syscall.Signal) bool {
	for line := range strings.Lines(status) {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "ShdPnd" && name != "SigPnd") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
		if err == nil && mask&(1<<(uint(sig)-1)) != 0 {
			return true
		}
	}
	return false
}

// Signal sends sig to p only if p is still the same process (same start
// time); it reports whether it was sent.
func (p Process) Signal(sig syscall.Signal) (bool, error) {
	if !p.Alive() {
		return false, nil
	}
	if err := syscall.Kill(p.PID, sig); err != nil {
		return false, fmt.Errorf("signal pid %d: %w", p.PID, err)
	}
	return true, nil
}

// KillGroup sends SIGKILL to every live member of p's process group that
// started no earlier than p did (a member born before the group's leader
// cannot belong to it), and returns how many it killed.
func (p Process) KillGroup() (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	killed := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.pgrp != p.PID || st.start < p.Start || st.state == "Z" {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	return killed, nil
}

type procStat struct {
	state string
	pgrp  int
	flags uint64
	start uint64
}

// pfExiting is the kernel's PF_EXITING task flag (include/linux/sched.h):
// the task has begun do_exit.
const pfExiting = 0x4

// readStat parses /proc/PID/stat: state (field 3), pgrp (5), flags (9),
// starttime (22).
func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')') // comm may hold spaces and ')'
	if end < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat pgrp: %w", pid, err)
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat flags: %w", pid, err)
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat starttime: %w", pid, err)
	}
	return procStat{state: f[0], pgrp: pgrp, flags: flags, start: start}, nil
}
