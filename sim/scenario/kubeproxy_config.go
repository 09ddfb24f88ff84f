package scenario

import "github.com/svclab/svclab/sim/render"

// Config is the kube-proxy configuration the scenario's rules are written
// with: its release and feature gates, and the section's IPVS scheduler
// ("" is rr). The host facts are a current host's; the flags that change
// the rules are in the scenario's model (model.Cluster.Proxy).
func (k KubeProxy) Config(scheduler string) render.Config {
	return render.Config{Version: k.Version, IPVSScheduler: scheduler,
		LocalhostNodePortsGate: k.FeatureGate(FeatureGateNFTablesLocalhostNodePorts)}
}
