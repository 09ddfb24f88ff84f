package ebpf

import (
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
)

// TestProbe: on a kernel that runs the dataplanes (checked by loading them
// here) the probe finds what they need, and leaves no cgroup behind.
func TestProbe(t *testing.T) {
	ns := labtest.ScratchNetns(t)
	caps := Probe(ns)
	for _, f := range caps {
		t.Logf("%-16s %-5v %s", f.Name, f.OK, f.Detail)
	}
	objs, err := load(Capacity{ServicePorts: 16, Backends: 16, Flows: 16, Affinity: 16})
	if err != nil {
		t.Skipf("the dataplanes do not load here, nothing to compare with: %v", err)
	}
	_ = objs.Close()
	if !caps.Has("dataplane") || !caps.Has("cgroup-connect4") || !(caps.Has("tcx") || caps.Has("clsact")) {
		t.Errorf("the dataplanes load, but the probe says %+v", caps)
	}
	mount, err := CgroupMount()
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(mount)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), PrefixBase+"probe") {
			t.Errorf("probe left cgroup %s", e.Name())
		}
	}
}
