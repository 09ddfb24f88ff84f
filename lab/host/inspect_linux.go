package host

import (
	"os"
	"os/exec"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/uml"
)

// env is everything Check asks the system; tests replace it.
type env struct {
	geteuid  func() int
	release  func() string
	lookPath func(string) (string, error)
	run      runner
	scratch  func() (string, func() error, error)
	uml      func() (uml.Info, error)
	// bpf probes the eBPF dataplanes' kernel facilities; nil skips them.
	bpf func(scratch func() (string, func() error, error)) []Feature
	// drivers finds the kube-proxy drivers; nil skips them.
	drivers func() []Tool
}

var realEnv = env{
	geteuid: os.Geteuid, release: hostRelease, lookPath: exec.LookPath, run: runCommand,
	scratch: scratchNetns, uml: uml.Available, bpf: probeBPF, drivers: findDrivers,
}

// Inspect probes this machine. Kernel probes need root; without it they
// are reported Unknown. It leaves nothing behind: every probe runs in a
// scratch namespace that is deleted at the end.
func Inspect() Report { return inspect(realEnv) }

func inspect(e env) Report {
	r := Report{HostKernel: e.release(), Tools: findTools(e.lookPath, e.run)}
	toolOK := func(name string) bool { return r.toolOK(name) }
	if e.geteuid() == 0 {
		r.Kernel = probeKernel(e.scratch, toolOK)
		if e.bpf != nil {
			r.BPF = e.bpf(e.scratch)
		}
	} else {
		for _, name := range FeatureNames {
			r.Kernel = append(r.Kernel, Feature{Name: name, Status: Unknown, Detail: "not probed: needs root (run svclab doctor with sudo)"})
		}
	}
	r.UML = checkUML(e.uml)
	if e.drivers != nil {
		r.Drivers = e.drivers()
	}
	r.summarise()
	return r
}

// checkUML describes the user-mode-linux kernel.
func checkUML(available func() (uml.Info, error)) UML {
	info, err := available()
	if err != nil {
		return UML{Status: Missing, Detail: err.Error()}
	}
	u := UML{Status: OK, Info: &info, IPVS: info.HasIPVS()}
	if !u.IPVS {
		u.Detail = "no ip_vs, ip_vs_rr, veth or dummy module"
	} else if missing := missingSchedulers(info); len(missing) > 0 {
		u.Detail = "schedulers missing: " + joinWords(missing)
	}
	return u
}

func missingSchedulers(info uml.Info) []string {
	var out []string
	for _, s := range uml.IPVSSchedulers {
		if !slices.Contains(info.Schedulers, s) {
			out = append(out, s)
		}
	}
	return out
}

func hostRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}
