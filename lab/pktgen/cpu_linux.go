package pktgen

import (
	"time"

	"github.com/svclab/svclab/lab/procstat"
)

// kernelCPUSeconds is the machine's system plus softirq CPU time
// (procstat.CPUTimes.Kernel): where packet forwarding runs.
func kernelCPUSeconds() (float64, error) {
	c, err := procstat.ReadCPU()
	return c.Kernel(), err
}

// cpuReading is kernelCPUSeconds at one instant.
type cpuReading struct {
	seconds float64
	at      time.Time
}

func readCPU() (cpuReading, error) {
	s, err := kernelCPUSeconds()
	return cpuReading{seconds: s, at: time.Now()}, err
}

// since returns the kernel CPU seconds from r0 to r, less baselineCores
// busy for the wall time between them, and never below zero.
func (r cpuReading) since(r0 cpuReading, baselineCores float64) float64 {
	return max(0, r.seconds-r0.seconds-baselineCores*r.at.Sub(r0.at).Seconds())
}

// idleCPU measures the machine's system plus softirq load, in cores busy,
// over d with no blast running.
func idleCPU(d time.Duration) (float64, error) {
	r0, err := readCPU()
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	r1, err := readCPU()
	if err != nil {
		return 0, err
	}
	return r1.since(r0, 0) / r1.at.Sub(r0.at).Seconds(), nil
}
