package ebpf

import (
	"bufio"
	"strings"
	"testing"
)

func TestParseCgroupMount(t *testing.T) {
	for _, c := range []struct {
		name, mountinfo, want string
		err                   bool
	}{
		{name: "hybrid (this host)", mountinfo: "25 24 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n" +
			"26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n" +
			"27 25 0:24 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n", want: "/sys/fs/cgroup/unified"},
		{name: "unified", mountinfo: "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw\n", want: "/sys/fs/cgroup"},
		{name: "escaped space", mountinfo: "30 23 0:26 / /mnt/my\\040cg rw - cgroup2 none rw\n", want: "/mnt/my cg"},
		{name: "v1 only", mountinfo: "27 25 0:24 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n", err: true},
		{name: "empty", mountinfo: "", err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseCgroupMount(bufio.NewScanner(strings.NewReader(c.mountinfo)))
			if (err != nil) != c.err || got != c.want {
				t.Errorf("got %q, %v; want %q (error %v)", got, err, c.want, c.err)
			}
		})
	}
}

func FuzzParseCgroupMount(f *testing.F) {
	f.Add("26 25 0:23 / /sys/fs/cgroup/unified rw shared:9 - cgroup2 cgroup2 rw\n")
	f.Add("30 23 0:26 / /mnt/a\\040b rw - cgroup2 none rw\n")
	f.Add("- cgroup2\n")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseCgroupMount(bufio.NewScanner(strings.NewReader(s)))
		if err == nil && !strings.Contains(s, "cgroup2") {
			t.Errorf("found %q in input without cgroup2", got)
		}
	})
}
