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
	start uint64
}

// readStat parses /proc/PID/stat: state (field 3), pgrp (5), starttime (22).
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
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat starttime: %w", pid, err)
	}
	return procStat{state: f[0], pgrp: pgrp, start: start}, nil
}
