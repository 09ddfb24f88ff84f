package main

import (
	"runtime"

	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/sim/cost"
)

// thisMachine is the identity of the machine svclab runs on: what a
// calibration stores and what plan compares a calibration with.
func thisMachine() *cost.Machine {
	m := &cost.Machine{CPUModel: host.CPUModel(), CPUs: runtime.NumCPU(), Kernel: host.KernelRelease(), Tools: host.ToolVersions(),
		RecentHashBuckets: host.RecentHashBuckets()}
	for _, c := range host.CPUCaches() {
		m.Caches = append(m.Caches, cost.Cache{Level: c.Level, Type: c.Type, Bytes: c.Bytes})
	}
	return m
}
