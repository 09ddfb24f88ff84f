package runner

import (
	"context"
	"os"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/session"
	"github.com/svclab/svclab/sim/scenario"
)

// ServeUp is the `svclab up` daemon (see lab/session): it takes the lab's lease, builds the
// scenario's lab, programs one dataplane, records the lab's state, and
// serves it until ctx ends; then it removes everything and the state.
// ready is called once the lab answers.
func ServeUp(ctx context.Context, sc *scenario.Scenario, dp, prefix string, ready func(session.UpState)) error {
	l, err := lease.Acquire(prefix, lease.KindUp)
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
	if err := session.SaveState(st); err != nil {
		return err
	}
	defer session.RemoveState(prefix)
	if ready != nil {
		ready(st)
	}
	<-ctx.Done()
	return nil
}

func upState(sc *scenario.Scenario, lab *kernelLab, dp, prefix string) session.UpState {
	st := session.UpState{Run: prefix, PID: os.Getpid(), Scenario: sc.Name, Dataplane: dp,
		NodeNetns: lab.topo.NodeNetns, ClientNetns: lab.topo.ClientNetns, PodNetns: map[string]string{}}
	for _, p := range lab.topo.Pods {
		st.PodNetns[p.Name] = p.Netns
	}
	for _, s := range sc.Explicit() {
		for _, p := range s.Ports {
			st.Services = append(st.Services, session.UpService{Name: s.PortName(p), ClusterIP: s.ClusterIP.String(), Port: p.Port, Endpoints: s.ReadyEndpoints(p)})
		}
	}
	return st
}
