package runner

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// Version and Commit are set at build time (-ldflags -X) by the Makefile.
var (
	Version = "dev"
	Commit  = ""
)

// CollectMeta describes the machine and tools a run measures.
func CollectMeta(run string, sc *scenario.Scenario, kind string) results.Meta {
	host, _ := os.Hostname()
	guest := ""
	if os.Getenv(uml.GuestEnv) == "1" {
		guest = KernelRelease() // the host rewrites Kernel after the guest stops
	}
	return results.Meta{GuestKernel: guest,
		Schema: results.SchemaVersion, Run: run, Scenario: sc.Name, ScenarioHash: sc.Hash(), Kind: kind,
		Started: time.Now().UTC().Format(time.RFC3339), Kernel: KernelRelease(), CPU: cpuModel(), CPUs: runtime.NumCPU(),
		GoVersion: runtime.Version(), GitCommit: gitCommit(), SvclabVersion: Version, Hostname: host,
		Tools: toolVersions(), Engine: sc.KubeProxy.Engine, KubeProxyVersion: string(sc.KubeProxy.Version),
	}
}

// KernelRelease is the running kernel's release and version string.
func KernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:]) + " " + unix.ByteSliceToString(u.Version[:])
}

func cpuModel() string {
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

// gitCommit is the commit svclab was built from: the Makefile's -ldflags,
// else the VCS stamp the Go toolchain put in the binary, else "unknown".
// It never asks git about the directory svclab happens to run in.
func gitCommit() string {
	if Commit != "" {
		return Commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && dirty {
			return rev + "-dirty"
		}
		if rev != "" {
			return rev
		}
	}
	return "unknown"
}

// toolVersions runs each dataplane's version command (sim/dataplane's
// Version) in the host namespace; version queries touch no rules.
func toolVersions() map[string]string {
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
