package ipvs

import (
	"slices"

	"github.com/svclab/svclab/sim/render"
)

// OptionsFor derives the IPVS renderer's options from a kube-proxy
// configuration: its release, flags, scheduler and host facts, on top of
// DefaultOptions (OptionsFor of the zero Config is DefaultOptions).
func OptionsFor(c render.Config) Options {
	opts := DefaultOptions()
	opts.Version = c.Version
	opts.Flags = c.Flags.Clone()
	if c.IPVSScheduler != "" {
		opts.Scheduler = c.IPVSScheduler
	}
	opts.RandomFully = !c.Host.NoRandomFully
	opts.NodeIPs = slices.Clone(c.Host.NodeIPs)
	return opts
}
