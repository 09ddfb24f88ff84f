package ebpf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/svclab/svclab/lab/cgroup"
)

// PrefixBase starts every svclab object name (as topo.PrefixBase).
const PrefixBase = "svl-"

// ciliumVersion is the cilium/ebpf module version built in.
var ciliumVersion = func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/cilium/ebpf" {
				return d.Version
			}
		}
	}
	return "(unknown)"
}()

// Cleanup removes what a killed run of either dataplane can leave: its
// cgroups (<cgroup2 mount>/<prefix>-ebpf) and the processes still in them
// (the run's children), and says what it removed ("cgroup <path>",
// "process <pid> (in cgroup <path>)"). BPF
// links and maps die with the process that held them, and a clsact qdisc
// with the veth when the run's namespaces are deleted, so there is nothing
// else. An empty prefix means every svclab run ("svl-"); a run prefix such
// as "svl-3f9a" matches only its own cgroup: only a run that is over may
// be cleaned up.
func Cleanup(prefix string) ([]string, error) {
	if prefix == "" {
		prefix = PrefixBase
	}
	if !strings.HasPrefix(prefix, PrefixBase) {
		return nil, fmt.Errorf("ebpf cleanup %q: prefix must start with %q", prefix, PrefixBase)
	}
	mount, err := CgroupMount()
	if err != nil {
		return nil, nil // no cgroup2: no run could have made one
	}
	entries, err := os.ReadDir(mount)
	if err != nil {
		return nil, fmt.Errorf("ebpf cleanup: list %s: %w", mount, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasSuffix(name, cgroupSuffix) || !belongsToRun(name, prefix) {
			continue
		}
		path := filepath.Join(mount, name)
		killed, err := cgroup.KillAndRemove(path)
		removed = append(removed, cgroup.KilledNotes(path, killed)...)
		if err != nil {
			errs = append(errs, fmt.Errorf("ebpf cleanup: %w", err))
			continue
		}
		removed = append(removed, "cgroup "+path)
	}
	return removed, errors.Join(errs...)
}

// belongsToRun is topo's rule: a prefix ending in "-" matches every name it
// starts; a run prefix matches itself and names continuing with "-".
func belongsToRun(name, prefix string) bool {
	if strings.HasSuffix(prefix, "-") {
		return strings.HasPrefix(name, prefix)
	}
	return name == prefix || strings.HasPrefix(name, prefix+"-")
}
