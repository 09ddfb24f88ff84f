package scenario

import "github.com/svclab/svclab/sim/render"

// Config is the kube-proxy configuration the scenario's rules are written
// with: its release, feature gates and flags, and the section's IPVS
// scheduler ("" is rr). The host facts are a current host's.
func (k KubeProxy) Config(scheduler string) render.Config {
	return render.Config{Version: k.Version, IPVSScheduler: scheduler, Flags: k.Flags.Clone(),
		LocalhostNodePortsGate: k.FeatureGate(FeatureGateNFTablesLocalhostNodePorts)}
}
