package runner

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/scenario"
)

// StateDir holds one JSON file per lab left running by `svclab up`, beside
// the leases.
const StateDir = lease.Dir

// UpService describes one explorable service of a running lab.
type UpService struct {
	Name      string   `json:"name"`
	ClusterIP string   `json:"clusterIP"`
	Port      int      `json:"port"`
	Endpoints []string `json:"endpoints"`
}

// UpState is what `svclab up` prints and `svclab down` reads back.
type UpState struct {
	Run         string            `json:"run"`
	PID         int               `json:"pid"`
	Scenario    string            `json:"scenario"`
	Dataplane   string            `json:"dataplane"`
	NodeNetns   string            `json:"node_netns"`
	ClientNetns string            `json:"client_netns"`
	PodNetns    map[string]string `json:"pod_netns"`
	Services    []UpService       `json:"services"`
}

// UpDataplanes are the dataplanes `svclab up` can leave running on the host.
var UpDataplanes = dataplane.UpNames()

// ServeUp is the `svclab up` daemon: it takes the lab's lease, builds the
// scenario's lab, programs one dataplane, records the lab's state, and
// serves it until ctx ends; then it removes everything and the state.
// ready is called once the lab answers.
func ServeUp(ctx context.Context, sc *scenario.Scenario, dp, prefix string, ready func(UpState)) error {
	l, err := lease.Acquire(prefix, "up")
	if err != nil {
		return err
	}
	defer l.Release()
	m, err := sc.Model()
	if err != nil {
		return err
	}
	fillers := sc.Synthetic != nil && sc.Synthetic.Services > 0
	lab, err := newKernelLab(ctx, labSpecFor(sc, prefix, fillers, false))
	if err != nil {
		return err
	}
	defer lab.Close()
	d, err := lab.Dataplane(dp, settingsFor(sc, ""))
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.FullSync(ctx, m); err != nil {
		return err
	}
	st := upState(sc, lab, dp, prefix)
	if err := saveState(st); err != nil {
		return err
	}
	defer removeUpFiles(prefix)
	if ready != nil {
		ready(st)
	}
	<-ctx.Done()
	return nil
}

func upState(sc *scenario.Scenario, lab *kernelLab, dp, prefix string) UpState {
	st := UpState{Run: prefix, PID: os.Getpid(), Scenario: sc.Name, Dataplane: dp,
		NodeNetns: lab.topo.NodeNetns, ClientNetns: lab.topo.ClientNetns, PodNetns: map[string]string{}}
	for _, p := range lab.topo.Pods {
		st.PodNetns[p.Name] = p.Netns
	}
	for _, s := range sc.Explicit() {
		for _, p := range s.Ports {
			st.Services = append(st.Services, UpService{Name: s.PortName(p), ClusterIP: s.ClusterIP.String(), Port: p.Port, Endpoints: s.ReadyEndpoints(p)})
		}
	}
	return st
}

// Describe returns how to reach a service, e.g. for `curl`.
func (s UpService) Describe() string {
	return "http://" + netip.AddrPortFrom(netip.MustParseAddr(s.ClusterIP), uint16(s.Port)).String() + "/ (" + strconv.Itoa(len(s.Endpoints)) + " endpoints)"
}

// ErrNoSuchLab is returned by Down for a run that has no running lab.
var ErrNoSuchLab = errors.New("no such lab")

// checkRunName refuses anything but a run prefix (never a path).
func checkRunName(run string) error {
	if !validRunPrefix(run) {
		return fmt.Errorf("%q is not a run name like svl-3f9a: %w", run, ErrNoSuchLab)
	}
	return nil
}
