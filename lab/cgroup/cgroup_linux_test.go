package cgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
)

// hybridMountinfo is this Debian host's layout: v1 hierarchies under a
// tmpfs, cgroup2 at /sys/fs/cgroup/unified.
const hybridMountinfo = "30 24 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n" +
	"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
	"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
	"40 30 0:37 / /sys/fs/cgroup/unified rw,nosuid,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"

// TestParseMount finds cgroup2, or the v1 hierarchy whose super options
// name the controller, and nothing else.
func TestParseMount(t *testing.T) {
	tests := []struct {
		name, mountinfo, controller, want string
		err                               error
	}{
		{"memory on a hybrid host", hybridMountinfo, "memory", "/sys/fs/cgroup/memory", nil},
		{"cgroup2 on a hybrid host", hybridMountinfo, Unified, "/sys/fs/cgroup/unified", nil},
		{"memory shares a hierarchy, with an optional field",
			"34 30 0:31 / /sys/fs/cgroup/memory,cpu rw shared:9 - cgroup cgroup rw,cpu,memory\n",
			"memory", "/sys/fs/cgroup/memory,cpu", nil},
		{"cgroup v2 only, memory asked", "40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n", "memory", "", ErrNotMounted},
		{"cgroup v2 only", "40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n", Unified, "/sys/fs/cgroup", nil},
		{"a controller named like it", "34 30 0:31 / /x rw - cgroup cgroup rw,memory_x\n", "memory", "", ErrNotMounted},
		{"v1 only, cgroup2 asked", "34 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n", Unified, "", ErrNotMounted},
		{"escaped space", "30 23 0:26 / /mnt/my\\040cg rw - cgroup2 none rw\n", Unified, "/mnt/my cg", nil},
		{"empty", "", Unified, "", ErrNotMounted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMount(strings.NewReader(tt.mountinfo), tt.controller)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("parseMount(%q) = %q, %v; want %q, %v", tt.controller, got, err, tt.want, tt.err)
			}
		})
	}
}

// TestParseGroup reads the controller's line of /proc/self/cgroup, alone or
// shared with other controllers, or cgroup2's "0::" line.
func TestParseGroup(t *testing.T) {
	tests := []struct {
		name, cgroup, controller, want string
		err                            error
	}{
		{"own line", "5:devices:/\n4:memory:/process_api/7063\n0::/\n", "memory", "/process_api/7063", nil},
		{"shared line", "3:cpu,memory:/kubepods/pod1\n", "memory", "/kubepods/pod1", nil},
		{"cgroup v2 only, memory asked", "0::/user.slice\n", "memory", "", ErrNotMounted},
		{"cgroup2 on a hybrid host", "5:devices:/\n4:memory:/a\n0::/b\n", Unified, "/b", nil},
		{"no cgroup2 line", "4:memory:/a\n", Unified, "", ErrNotMounted},
		{"a named v1 hierarchy is not cgroup2", "1:name=systemd:/init.scope\n", Unified, "", ErrNotMounted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseGroup(strings.NewReader(tt.cgroup), tt.controller)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("parseGroup(%q) = %q, %v; want %q, %v", tt.controller, got, err, tt.want, tt.err)
			}
		})
	}
}

func FuzzParseMount(f *testing.F) {
	f.Add(hybridMountinfo, "memory")
	f.Add("30 23 0:26 / /mnt/a\\040b rw - cgroup2 none rw\n", Unified)
	f.Add("- cgroup2\n", Unified)
	f.Fuzz(func(t *testing.T, s, controller string) {
		got, err := parseMount(strings.NewReader(s), controller)
		if err == nil && !strings.Contains(s, "cgroup") {
			t.Errorf("found %q in input without a cgroup mount", got)
		}
	})
}

// TestMoveProcessAndBack makes a group in the host's cgroup2 hierarchy (or
// its v1 memory one), moves the process in and back, and removes it.
func TestMoveProcessAndBack(t *testing.T) {
	labtest.RequireRoot(t)
	for _, controller := range []string{Unified, "memory"} {
		t.Run(hierarchyName(controller), func(t *testing.T) {
			home, dir := makeTestGroup(t, controller)
			if err := MoveProcess(dir); err != nil {
				t.Fatal(err)
			}
			if now, err := OwnDir(controller); err != nil || now != dir {
				t.Errorf("the process's group after moving is %s (%v), want %s", now, err, dir)
			}
			if err := MoveProcess(home); err != nil {
				t.Fatal(err)
			}
			if err := Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := Remove(dir); err != nil {
				t.Errorf("Remove of a group already gone: %v; want nil", err)
			}
		})
	}
}

// TestProcesses reads a group's cgroup.procs (here a plain file of the
// same form): one pid a line, none in an empty group; a bad line or a
// group that is not there is an error naming the group.
func TestProcesses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		procs   string
		want    []int
		wantErr bool
	}{
		{"three", "1204\n1300\n77\n", []int{1204, 1300, 77}, false},
		{"empty", "", nil, false},
		{"not a pid", "12\nx\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(tc.procs), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Processes(dir)
			if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
				t.Errorf("Processes = %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name the group %s", err, dir)
			}
		})
	}
	if _, err := Processes(filepath.Join(t.TempDir(), "gone")); err == nil {
		t.Error("Processes of a group that is not there: no error")
	}
}

// TestRemoveWaitsForExitingProcesses puts a child process in a new group of
// each hierarchy and asks Remove to delete the group while the child still
// runs: Remove must wait until the child, killed a moment later, has left,
// as `svclab cleanup` removes a killed run's groups right after killing its
// processes. A child that stays past the wait makes an error naming the
// group and the child.
func TestRemoveWaitsForExitingProcesses(t *testing.T) {
	labtest.RequireRoot(t)
	for _, controller := range []string{Unified, "memory"} {
		t.Run(hierarchyName(controller), func(t *testing.T) {
			_, dir := makeTestGroup(t, controller)
			child := startIn(t, dir)
			defer busyWaitFor(100 * time.Millisecond)()
			err := Remove(dir)
			if err == nil || !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), dir) ||
				!strings.Contains(err.Error(), strconv.Itoa(child.Process.Pid)) {
				t.Errorf("Remove of a group with a live process: %v; want EBUSY naming %s and process %d", err, dir, child.Process.Pid)
			}

			killed := make(chan error, 1)
			go func() {
				time.Sleep(300 * time.Millisecond)
				_ = child.Process.Kill()
				killed <- child.Wait()
			}()
			busyWaitFor(10 * time.Second)
			start := time.Now()
			if err := Remove(dir); err != nil {
				t.Fatalf("Remove while the process is killed and exits: %v", err)
			}
			if took := time.Since(start); took < 250*time.Millisecond {
				t.Errorf("Remove returned after %v, before the process was killed", took)
			}
			<-killed
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the group %s is still there: %v", dir, err)
			}
		})
	}
}

// startIn starts a sleeping child and moves it into the group at dir.
func startIn(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill() })
	pid := strconv.Itoa(child.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, procsFile), []byte(pid), 0); err != nil {
		t.Fatal(err)
	}
	return child
}

// busyWaitFor sets how long Remove waits and returns what restores it.
func busyWaitFor(d time.Duration) func() {
	old := busyWait
	busyWait = d
	return func() { busyWait = old }
}

// makeTestGroup makes a group for this test in the process's own group of
// controller's hierarchy (home), removed when the test ends, and skips
// without the hierarchy (fails under CI=true). Its name is unique to this
// process: a test run killed midway leaves its group, which must not fail
// the next.
func makeTestGroup(t *testing.T, controller string) (home, dir string) {
	t.Helper()
	home, err := OwnDir(controller)
	if errors.Is(err, ErrNotMounted) {
		labtest.Require(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(home, fmt.Sprintf("svl-test-%d-%s", os.Getpid(), filepath.Base(t.TempDir())))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Remove(dir) })
	return home, dir
}

// TestKillAndRemove removes a group a child still runs in, as `svclab
// cleanup` does for a killed run whose children outlive it: the child is
// killed and reported, the group is gone; a group already gone is not an
// error.
func TestKillAndRemove(t *testing.T) {
	labtest.RequireRoot(t)
	for _, controller := range []string{Unified, "memory"} {
		t.Run(hierarchyName(controller), func(t *testing.T) {
			_, dir := makeTestGroup(t, controller)
			child := startIn(t, dir)
			waited := make(chan error, 1)
			go func() { waited <- child.Wait() }()
			killed, err := KillAndRemove(dir)
			if err != nil || !slices.Equal(killed, []int{child.Process.Pid}) {
				t.Errorf("KillAndRemove = %v, %v; want [%d], nil", killed, err, child.Process.Pid)
			}
			if err := <-waited; err == nil || !strings.Contains(err.Error(), "killed") {
				t.Errorf("the child ended with %v; want killed", err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the group %s is still there: %v", dir, err)
			}
			if killed, err := KillAndRemove(dir); err != nil || killed != nil {
				t.Errorf("KillAndRemove of a group already gone = %v, %v; want nothing", killed, err)
			}
		})
	}
}

// TestKilledNotes names each killed process and its group, one note each.
func TestKilledNotes(t *testing.T) {
	for _, tc := range []struct {
		pids []int
		want []string
	}{
		{nil, []string{}},
		{[]int{12, 7}, []string{"process 12 (in cgroup /g/svl-1)", "process 7 (in cgroup /g/svl-1)"}},
	} {
		if got := KilledNotes("/g/svl-1", tc.pids); !slices.Equal(got, tc.want) {
			t.Errorf("KilledNotes(%v) = %q; want %q", tc.pids, got, tc.want)
		}
	}
}
