package procstat

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
)

// TestParseMemoryMount finds the v1 hierarchy whose super options name the
// memory controller, not cgroup2 and not a hierarchy of other controllers.
func TestParseMemoryMount(t *testing.T) {
	tests := []struct {
		name, mountinfo, want string
		err                   error
	}{
		{"debian 12 with v1 hierarchies",
			"30 24 0:27 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n" +
				"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
				"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
				"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
			"/sys/fs/cgroup/memory", nil},
		{"memory shares a hierarchy, with an optional field",
			"34 30 0:31 / /sys/fs/cgroup/memory,cpu rw shared:9 - cgroup cgroup rw,cpu,memory\n",
			"/sys/fs/cgroup/memory,cpu", nil},
		{"cgroup v2 only", "40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n", "", errNoMemoryController},
		{"a controller named like it", "34 30 0:31 / /x rw - cgroup cgroup rw,memory_x\n", "", errNoMemoryController},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMemoryMount(strings.NewReader(tt.mountinfo))
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("parseMemoryMount = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestParseMemoryGroup reads the memory controller's line of
// /proc/self/cgroup, alone or shared with other controllers.
func TestParseMemoryGroup(t *testing.T) {
	tests := []struct {
		name, cgroup, want string
		err                error
	}{
		{"own line", "5:devices:/\n4:memory:/process_api/7063\n0::/\n", "/process_api/7063", nil},
		{"shared line", "3:cpu,memory:/kubepods/pod1\n", "/kubepods/pod1", nil},
		{"cgroup v2 only", "0::/user.slice\n", "", errNoMemoryController},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMemoryGroup(strings.NewReader(tt.cgroup))
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("parseMemoryGroup = %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestGrowthIsCheckedAgainstTheOwnCharge: the machine's growth stands when
// the process's own charge agrees with it within 20% and 1 MB, or when
// there is no own charge to check it by.
func TestGrowthIsCheckedAgainstTheOwnCharge(t *testing.T) {
	const mb = 1 << 20
	before := MemoryReading{Machine: 100 * mb, Own: 10 * mb, HasOwn: true}
	tests := []struct {
		name      string
		after     MemoryReading
		want      int64
		disturbed bool
	}{
		{"agrees", MemoryReading{Machine: 118 * mb, Own: 30 * mb, HasOwn: true}, 18 * mb, false},
		{"nftables' uncharged arrays", MemoryReading{Machine: 123 * mb, Own: 30 * mb, HasOwn: true}, 23 * mb, false},
		{"a namespace freed meanwhile", MemoryReading{Machine: 86 * mb, Own: 30 * mb, HasOwn: true}, -14 * mb, true},
		{"another load meanwhile", MemoryReading{Machine: 140 * mb, Own: 30 * mb, HasOwn: true}, 40 * mb, true},
		{"small load, background", MemoryReading{Machine: 100*mb + mb/2, Own: 10 * mb, HasOwn: true}, mb / 2, false},
		{"no own group after", MemoryReading{Machine: 86 * mb}, -14 * mb, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := before.Growth(tt.after)
			if got != tt.want || errors.Is(err, ErrMemoryDisturbed) != tt.disturbed {
				t.Errorf("Growth = %d, %v; want %d, disturbed %v", got, err, tt.want, tt.disturbed)
			}
		})
	}
}

// TestJoinMemoryCgroupChargesTheProcess joins a memory cgroup, sees a child
// process's kernel memory charged to it, and leaves: the process is back in
// its group and the directory is gone.
func TestJoinMemoryCgroupChargesTheProcess(t *testing.T) {
	labtest.RequireRoot(t)
	home, err := ownMemoryGroupDir()
	if errors.Is(err, errNoMemoryController) {
		labtest.Require(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	path, err := MemoryCgroupPath("svl-test-" + filepath.Base(t.TempDir()) + "-kmem")
	if err != nil {
		t.Fatal(err)
	}
	if err := JoinMemoryCgroup(path); err != nil {
		t.Fatal(err)
	}
	before, err := ReadKernelMemory()
	if err != nil || !before.HasOwn {
		t.Fatalf("ReadKernelMemory in the group = %+v, %v; want an own charge", before, err)
	}
	// A namespace with a few thousand addresses holds kernel memory that
	// the child processes charge to the group.
	ns := labtest.ScratchNetns(t)
	var cmds strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&cmds, "address add 10.%d.%d.1/32 dev lo\n", i/250, i%250)
	}
	cmd := exec.Command("ip", "-n", ns, "-batch", "-")
	cmd.Stdin = strings.NewReader(cmds.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ip -batch: %v: %s", err, out)
	}
	after, err := ReadKernelMemory()
	if err != nil || !after.HasOwn || after.Own-before.Own < 100_000 {
		t.Errorf("2,000 addresses charged %d bytes to the group (%v); want over 100 kB", after.Own-before.Own, err)
	}
	if err := LeaveMemoryCgroup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s after leaving: %v; want it removed", path, err)
	}
	if now, err := ownMemoryGroupDir(); err != nil || now != home {
		t.Errorf("the process's group after leaving is %s (%v), want %s", now, err, home)
	}
	if left, _ := ReadKernelMemory(); left.HasOwn {
		t.Errorf("ReadKernelMemory after leaving = %+v; want no own charge", left)
	}
}
