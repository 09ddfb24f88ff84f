package runner

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/buildinfo"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// CollectMeta describes the machine and tools a run measures.
func CollectMeta(run string, sc *scenario.Scenario, kind string) results.Meta {
	host, _ := os.Hostname()
	build := buildinfo.Get()
	guest := ""
	if os.Getenv(uml.GuestEnv) == "1" {
		guest = KernelRelease() // the host rewrites Kernel after the guest stops
	}
	return results.Meta{GuestKernel: guest,
		Schema: results.SchemaVersion, Run: run, Scenario: sc.Name, ScenarioHash: sc.Hash(), Kind: kind,
		Started: time.Now().UTC().Format(time.RFC3339), Kernel: KernelRelease(), CPU: cpuModel(), CPUs: runtime.NumCPU(),
		GoVersion: runtime.Version(), GitCommit: build.Commit, SvclabVersion: build.Version, Hostname: host,
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

// toolVersions runs each tool's version command in the host namespace;
// version queries touch no rules.
func toolVersions() map[string]string {
	cmds := map[string][]string{
		"iptables-legacy": {"iptables-legacy", "--version"},
		"iptables-nft":    {"iptables-nft", "--version"},
		"nft":             {"nft", "--version"},
		// ipvsadm --version fails without IPVS in the kernel; ask dpkg.
		"ipvsadm": {"dpkg-query", "-W", "-f=ipvsadm ${Version}", "ipvsadm"},
	}
	out := map[string]string{}
	for name, argv := range cmds {
		b, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			out[name] = "not installed"
			continue
		}
		out[name] = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	return out
}
