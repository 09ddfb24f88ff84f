package runner

import (
	"fmt"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/ebpf"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/dataplane"
)

func init() { extraDataplanes[dataplane.BPFMaps] = newBPFDataplane }

// newBPFDataplane attaches the "ebpf" programs to the lab's client veth, or
// creates the "ebpf-sock" cgroup (named after the run prefix, so `svclab
// cleanup` finds it: see ebpf.Cleanup) and moves this process into it until
// the dataplane is closed.
func newBPFDataplane(l *kernelLab, info dataplane.Info, _ apply.Settings) (apply.Dataplane, error) {
	if l.topo.ClientVeth == "" {
		return nil, fmt.Errorf("%s needs a client pod (its node-side veth); the scenario puts the client on the node", info.Name)
	}
	switch info.Name {
	case dataplane.EBPF:
		return ebpf.NewTC(ebpf.TCConfig{NodeNetns: l.topo.NodeNetns, Clients: []ebpf.Veth{{Netns: l.topo.NodeNetns, Name: l.topo.ClientVeth}}})
	case dataplane.EBPFSock:
		// NewSock moves this process into the cgroup; Close moves it back.
		// One cgroup per run: a sweep keeps every point's lab alive at once.
		return ebpf.NewSock(ebpf.SockConfig{Prefix: topo.RunPrefix(l.topo.Prefix), ClientNetns: l.topo.ClientNetns})
	}
	return nil, fmt.Errorf("no BPF dataplane %s", info.Name)
}
