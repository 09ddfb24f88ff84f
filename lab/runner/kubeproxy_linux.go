package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// kubeProxyModes maps a dataplane to kube-proxy's --proxy-mode and the
// iptables variant its commands use.
var kubeProxyModes = map[dataplane.Name][2]string{
	dataplane.IPTablesLegacy: {"iptables", "legacy"},
	dataplane.IPTablesNFT:    {"iptables", "nft"},
	dataplane.NFTables:       {"nftables", ""},
	dataplane.IPVS:           {"ipvs", "legacy"},
}

// kubeProxyDataplane is the external engine behind the seam: kube-proxy's
// own proxier, run by the driver inside the lab's node namespace, programs
// the kernel and times its own syncs (Sync.Engine). What it leaves in the
// kernel is read and removed as for the native dataplane of the same name.
type kubeProxyDataplane struct {
	apply.Dataplane // the native one: Count, Reset and Close of the same rules
	engine          *kubeproxy.Engine
	version         render.KubeProxyVersion
}

func newKubeProxyDataplane(l *kernelLab, info dataplane.Info, s apply.Settings) (apply.Dataplane, error) {
	mode, ok := kubeProxyModes[info.Name]
	if !ok {
		return nil, fmt.Errorf("dataplane %s has no kube-proxy mode; the kube-proxy engine runs %v", info.Name, []string{"iptables-legacy", "iptables-nft", "nftables", "ipvs"})
	}
	bin, err := kubeproxy.Find(string(s.Version))
	if err != nil {
		return nil, err
	}
	native, err := apply.New(string(info.Name), l.topo.NodeNetns, s)
	if err != nil {
		return nil, err
	}
	return &kubeProxyDataplane{Dataplane: native, version: s.Version.OrLatest(),
		engine: &kubeproxy.Engine{NS: l.topo.NodeNetns, Bin: bin, Mode: mode[0], IPTables: mode[1]}}, nil
}

// Version names kube-proxy's release and the tools under it.
func (d *kubeProxyDataplane) Version() string {
	return "kube-proxy v" + string(d.version) + " (driver); " + d.Dataplane.Version()
}

// FullSync starts kube-proxy on an empty node and reports its first sync.
func (d *kubeProxyDataplane) FullSync(ctx context.Context, m *model.Model) (apply.Sync, error) {
	s, err := d.engine.FullSync(ctx, m)
	return engineSync(s, err, "full sync")
}

// Program is FullSync: kube-proxy has one way to program a node.
func (d *kubeProxyDataplane) Program(ctx context.Context, m *model.Model) (apply.Sync, error) {
	return d.FullSync(ctx, m)
}

// Apply hands kube-proxy the change and reports its partial sync.
func (d *kubeProxyDataplane) Apply(_ context.Context, m *model.Model, c apply.Change) (apply.Sync, error) {
	s, err := d.engine.Apply(m, c.Service, c.Endpoint)
	return engineSync(s, err, "partial sync")
}

// Reset stops kube-proxy and removes its rules.
func (d *kubeProxyDataplane) Reset(ctx context.Context) error {
	return errors.Join(d.engine.Close(), d.Dataplane.Reset(ctx))
}

// Close stops kube-proxy and removes its rules.
func (d *kubeProxyDataplane) Close() error {
	return errors.Join(d.engine.Close(), d.Dataplane.Close())
}

// engineSync turns kube-proxy's report into the seam's Sync.
func engineSync(s kube.Sync, err error, what string) (apply.Sync, error) {
	if err == nil && s.Error != "" {
		err = errors.New(s.Error)
	}
	if err != nil {
		return apply.Sync{}, fmt.Errorf("kube-proxy %s: %w", what, err)
	}
	return apply.Sync{Payload: render.Stats{Bytes: s.PayloadBytes}, Duration: time.Duration(s.DurationNS), Engine: true}, nil
}
