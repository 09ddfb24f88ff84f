package nftables

import "github.com/svclab/svclab/sim/render"

// OptionsFor derives the nftables renderer's options from a kube-proxy
// configuration: its release, flags and the localhost NodePorts feature gate. The
// script's loading options (SkipBaseChainReset, FlushContainers) are the
// caller's.
func OptionsFor(c render.Config) Options {
	return Options{Version: c.Version, Flags: c.Flags.Clone(), LocalhostNodePortsGate: c.LocalhostNodePortsGate}
}
