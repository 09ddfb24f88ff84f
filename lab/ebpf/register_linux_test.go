package ebpf

import (
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/dataplane"
)

// TestRegistered: both eBPF dataplanes open through lab/apply by name, and
// refuse a node whose client runs on the node before touching a kernel.
func TestRegistered(t *testing.T) {
	for _, name := range []dataplane.Name{dataplane.EBPF, dataplane.EBPFSock} {
		if !slices.Contains(apply.Registered(), name) {
			t.Errorf("%s is not registered", name)
		}
		_, err := apply.Open(string(name), apply.Node{Netns: "svl-none", ClientNetns: "svl-none"}, apply.Settings{})
		if err == nil || !strings.Contains(err.Error(), "needs a client pod") {
			t.Errorf("Open(%s) without a client veth = %v, want a refusal", name, err)
		}
	}
}
