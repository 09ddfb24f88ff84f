package pktgen

import (
	"fmt"
	"time"

	"github.com/prometheus/procfs"
)

// kernelCPUSeconds returns the machine-wide system plus softirq CPU time
// from /proc/stat, in seconds since boot. Packet forwarding runs in softirq,
// either in ksoftirqd or in the context of the task that raised it (the
// sender's sendmmsg), which counts as softirq or as system time depending
// on the kernel's IRQ time accounting; the sum covers both.
func kernelCPUSeconds() (float64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, fmt.Errorf("open /proc: %w", err)
	}
	st, err := fs.Stat()
	if err != nil {
		return 0, fmt.Errorf("read /proc/stat: %w", err)
	}
	return st.CPUTotal.System + st.CPUTotal.SoftIRQ, nil
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
