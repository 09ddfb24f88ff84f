package kubeproxy

import (
	"context"
	"fmt"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Engine programs a lab namespace with kube-proxy itself. Its methods
// follow the dataplane seam's FullSync and Apply (lab/apply's Dataplane),
// returning kube-proxy's own reports; an adapter in lab/apply turns them
// into apply.Sync (Engine: true).
type Engine struct {
	NS, Bin, Mode string
	// IPTables is the iptables variant in iptables mode: "legacy" or "nft".
	IPTables string
	// Config is the kube-proxy configuration it runs with (its flags;
	// the release is Bin's).
	Config render.Config
	proc   *Process
}

// FullSync starts a fresh kube-proxy in the namespace and programs m: the
// report of kube-proxy's first, full sync.
func (e *Engine) FullSync(ctx context.Context, m *model.Model) (kube.Sync, error) {
	if err := e.Close(); err != nil {
		return kube.Sync{}, err
	}
	req, err := kube.NewRequest(e.Mode, e.Config, m)
	if err != nil {
		return kube.Sync{}, err
	}
	req.OmitPayload = true
	p, syncs, err := Start(ctx, e.NS, e.Bin, e.IPTables, req)
	if err != nil {
		return kube.Sync{}, err
	}
	e.proc = p
	return syncs[0], nil
}

// Apply hands kube-proxy the change from services before to after (the
// informer events that turn one into the other, in one step) and returns
// the report of the partial sync that programs them.
func (e *Engine) Apply(before, after model.List) (kube.Sync, error) {
	if e.proc == nil {
		return kube.Sync{}, fmt.Errorf("kube-proxy %s in netns %s: apply before the full sync", e.Mode, e.NS)
	}
	return e.proc.Step(kube.Diff(before, after))
}

// Close stops kube-proxy; what it programmed stays.
func (e *Engine) Close() error {
	if e.proc == nil {
		return nil
	}
	p := e.proc
	e.proc = nil
	return p.Close()
}
