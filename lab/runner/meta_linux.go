package runner

import (
	"os"
	"runtime"
	"time"

	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/buildinfo"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// CollectMeta describes the machine and tools a run measures.
func CollectMeta(run string, sc *scenario.Scenario, kind string) results.Meta {
	hostname, _ := os.Hostname()
	build := buildinfo.Get()
	guest := ""
	if os.Getenv(uml.GuestEnv) == "1" {
		guest = host.KernelRelease() // the host rewrites Kernel after the guest stops
	}
	return results.Meta{GuestKernel: guest,
		Schema: results.SchemaVersion, Run: run, Scenario: sc.Name, ScenarioHash: sc.Hash(), Kind: kind,
		Started: time.Now().UTC().Format(time.RFC3339), Kernel: host.KernelRelease(), CPU: host.CPUModel(), CPUs: runtime.NumCPU(),
		GoVersion: runtime.Version(), GitCommit: build.Commit, SvclabVersion: build.Version, Hostname: hostname,
		Tools: host.ToolVersions(), Engine: sc.KubeProxy.Engine, KubeProxyVersion: string(sc.KubeProxy.Version),
		KernelMemoryCheck: procstat.OwnMemoryCgroup(), ProbeCPU: probeCPU(sc),
	}
}

// probeCPU is the CPU the scenario's sweep pins its probes to, if any.
func probeCPU(sc *scenario.Scenario) *int {
	if sc.Sweep == nil {
		return nil
	}
	return sc.Sweep.ProbeCPU
}
