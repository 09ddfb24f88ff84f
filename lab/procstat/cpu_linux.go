package procstat

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// CPUTimes are the machine-wide CPU times from /proc/stat, in seconds since
// boot. It is svclab's one CPU reader.
type CPUTimes struct {
	User, Nice, System, IRQ, SoftIRQ float64
}

// ReadCPU reads /proc/stat.
func ReadCPU() (CPUTimes, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return CPUTimes{}, fmt.Errorf("open /proc: %w", err)
	}
	return readCPU(fs)
}

// readCPU reads the stat file of fs.
func readCPU(fs procfs.FS) (CPUTimes, error) {
	st, err := fs.Stat()
	if err != nil {
		return CPUTimes{}, fmt.Errorf("read /proc/stat: %w", err)
	}
	c := st.CPUTotal
	return CPUTimes{User: c.User, Nice: c.Nice, System: c.System, IRQ: c.IRQ, SoftIRQ: c.SoftIRQ}, nil
}

// Busy is user + nice + system + irq + softirq: all the work lab traffic
// causes (the client's syscalls, the node's forwarding and rule walk, the
// pod's accept).
func (c CPUTimes) Busy() float64 { return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ }

// Kernel is system + softirq: where packet forwarding runs (in ksoftirqd, or
// in the sender's context, counted as softirq or system time depending on
// the kernel's IRQ time accounting).
func (c CPUTimes) Kernel() float64 { return c.System + c.SoftIRQ }
