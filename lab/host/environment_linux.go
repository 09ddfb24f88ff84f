package host

import (
	"bufio"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/sim/dataplane"
)

// The environment a run records in its meta: read-only facts about this
// machine, its kernel and the tools that program each dataplane.

// KernelRelease is the running kernel's release and version string.
func KernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Version[:])
}

// CPUModel is the first "model name" of /proc/cpuinfo, or "unknown".
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// ToolVersions runs each dataplane's version command (sim/dataplane's
// Version) in the host namespace; version queries touch no rules. A tool
// that does not run is "not installed".
func ToolVersions() map[string]string {
	out := map[string]string{}
	for _, d := range dataplane.All() {
		v := d.Version
		if v.Key == "" || len(v.Argv) == 0 {
			continue
		}
		b, err := exec.Command(v.Argv[0], v.Argv[1:]...).Output()
		if err != nil {
			out[v.Key] = "not installed"
			continue
		}
		out[v.Key] = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	return out
}
