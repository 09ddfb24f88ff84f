package timeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/results"
	tl "github.com/svclab/svclab/sim/timeline"
)

// KubeProxy is kube-proxy's own sync loop as an engine (lab/kubeproxy's
// Loop): each change goes in as Service and EndpointSlice events stamped
// with their trigger time, and kube-proxy syncs when its runner decides,
// with its real conntrack cleanup in the node's namespace.
type KubeProxy struct {
	Opt  kubeproxy.LoopOptions
	Mode string
	// Config is the kube-proxy configuration it runs with (its flags;
	// the release is Opt.Bin's).
	Config                    render.Config
	MinSyncPeriod, SyncPeriod time.Duration
	// Reset removes every rule of the node (a fresh restart, and Close).
	Reset func(context.Context) error

	loop *kubeproxy.Loop
	// done are the syncs of loops already ended (restarts).
	done []kube.LoopSync
	// started is the Service count of each loop's first state, in order.
	started []int
}

// Start starts kube-proxy on the first state and waits for its first sync.
func (k *KubeProxy) Start(ctx context.Context, m *model.Model) error {
	req, err := kube.NewRequest(k.Mode, k.Config, m)
	if err != nil {
		return err
	}
	lr := &kube.LoopRequest{Request: *req, MinSyncPeriod: metav1.Duration{Duration: k.MinSyncPeriod}, SyncPeriod: metav1.Duration{Duration: k.SyncPeriod}}
	k.started = append(k.started, m.Services.Len())
	k.loop, err = kubeproxy.StartLoop(ctx, k.Opt, lr)
	return err
}

// Apply sends the events that turn prev into next; a restart kills
// kube-proxy and starts a new one on next (on a node without rules when
// fresh), which returns after its first sync.
func (k *KubeProxy) Apply(ctx context.Context, prev, next *model.Model, trigger time.Time, restart, fresh bool) error {
	if restart {
		k.done = append(k.done, k.loop.Syncs()...)
		if err := k.loop.Kill(); err != nil {
			return fmt.Errorf("kill kube-proxy: %w", err)
		}
		if fresh {
			if err := k.Reset(ctx); err != nil {
				return fmt.Errorf("remove the node's rules: %w", err)
			}
		}
		return k.Start(ctx, next)
	}
	for _, op := range tl.Step(prev.Services, next.Services, trigger).Ops {
		if err := k.loop.Send(op); err != nil {
			return err
		}
	}
	return nil
}

// Syncs are kube-proxy's syncs, with the mean network programming latency
// each observed; each process's first sync is marked Restart with the
// Services it started with.
func (k *KubeProxy) Syncs(start time.Time) []results.TimelineSync {
	all := k.done
	if k.loop != nil {
		all = append(all, k.loop.Syncs()...)
	}
	var out []results.TimelineSync
	loops := 0
	for _, s := range all {
		ts := results.TimelineSync{AtS: s.Start.Sub(start).Seconds(), DurationS: s.Duration().Seconds(), Full: s.Full, Programmed: int(s.Programmed)}
		if s.Programmed > 0 {
			ts.ProgrammingS = s.ProgrammedSeconds / float64(s.Programmed)
		}
		if s.Index == 0 {
			ts.Restart = true
			if loops < len(k.started) {
				ts.Services = k.started[loops]
			}
			loops++
		}
		out = append(out, ts)
	}
	return out
}

// Close stops kube-proxy and removes its rules.
func (k *KubeProxy) Close() error {
	var err error
	if k.loop != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, serr := k.loop.Stop(ctx); serr != nil {
			err = serr
		}
	}
	return errors.Join(err, k.Reset(context.Background()))
}
