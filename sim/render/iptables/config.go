package iptables

import "github.com/svclab/svclab/sim/render"

// OptionsFor derives the iptables renderer's options from a kube-proxy
// configuration: its release, flags and host facts, on top of DefaultOptions
// (OptionsFor of the zero Config is DefaultOptions).
func OptionsFor(c render.Config) Options {
	opts := DefaultOptions()
	opts.Version = c.Version
	opts.Flags = c.Flags.Clone()
	opts.RandomFully = !c.Host.NoRandomFully
	opts.NFAcct = c.Host.NFAcct
	opts.ConntrackLiberal = c.Host.ConntrackLiberal
	return opts
}
