//go:build !linux

package main

import (
	"fmt"
	"io"
)

// labCommands need Linux network namespaces; elsewhere they only say so.
var labCommands = []struct{ name, summary string }{
	{"run", "run a scenario in the lab and record the results"},
	{"ab", "A/B two builds or settings in one interleaved job, and gate on the paired change"},
	{"up", "build a lab, program it and leave it running to explore"},
	{"down", "tear down a lab left running by svclab up"},
	{"cleanup", "remove what killed runs left behind"},
	{"doctor", "report which dataplanes this kernel supports and what to install"},
	{"demo", "the default scenario end to end"},
	{"verify-trace", "check the tracer against the kernel"},
}

func init() {
	for _, c := range labCommands {
		name := c.name
		register(&command{name: name, summary: c.summary + " (Linux only)", usage: needsLinux(name) + "\n",
			run: func([]string, io.Writer, io.Writer) error { return &exitError{code: 2, msg: needsLinux(name)} }})
	}
}

func needsLinux(name string) string {
	return fmt.Sprintf("svclab %s needs Linux (network namespaces); render, trace, analyze, plan, compare, gate and report work here", name)
}
