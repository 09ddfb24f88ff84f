package ebpf

import (
	"fmt"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/dataplane"
)

// init registers the eBPF dataplanes with lab/apply.
func init() {
	apply.Register(dataplane.EBPF, newTCDataplane)
	apply.Register(dataplane.EBPFSock, newSockDataplane)
}

// newTCDataplane attaches the TC programs to the client pod's node-side veth.
func newTCDataplane(n apply.Node, _ apply.Settings) (apply.Dataplane, error) {
	if err := needsClientPod(dataplane.EBPF, n); err != nil {
		return nil, err
	}
	return NewTC(TCConfig{NodeNetns: n.Netns, Clients: []Veth{{Netns: n.Netns, Name: n.ClientVeth}}})
}

// newSockDataplane creates the socket LB's cgroup, named after the run
// prefix so `svclab cleanup` finds it (see Cleanup), and moves this process
// into it until the dataplane is closed. One cgroup per run: a sweep keeps
// every point's lab alive at once.
func newSockDataplane(n apply.Node, _ apply.Settings) (apply.Dataplane, error) {
	if err := needsClientPod(dataplane.EBPFSock, n); err != nil {
		return nil, err
	}
	return NewSock(SockConfig{Prefix: n.RunPrefix, ClientNetns: n.ClientNetns})
}

// needsClientPod refuses a node whose client runs on the node itself: the
// eBPF dataplanes act at the client pod's veth or socket.
func needsClientPod(name dataplane.Name, n apply.Node) error {
	if n.ClientVeth == "" {
		return fmt.Errorf("%s needs a client pod (its node-side veth); the scenario puts the client on the node", name)
	}
	return nil
}
