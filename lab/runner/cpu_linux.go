package runner

import "github.com/svclab/svclab/lab/host"

// cpuSeconds is the machine's busy CPU time (host.CPUTimes.Busy). The
// difference over a batch, divided by its connections, is the CPU one new
// connection costs end to end; the rule walk is the part that grows with the
// service count. /proc/stat is machine-wide, so other load counts too: the
// sweep interleaves points to spread it evenly.
func cpuSeconds() (float64, error) {
	c, err := host.ReadCPU()
	return c.Busy(), err
}

// kernelMemory is host.KernelMemory.
func kernelMemory() (int64, error) { return host.KernelMemory() }
