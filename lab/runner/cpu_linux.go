package runner

import (
	"github.com/prometheus/procfs"
)

// cpuSeconds is the machine's busy CPU time (user + nice + system + irq +
// softirq) from /proc/stat. Lab traffic is all on this machine: the client's
// syscalls, the node's forwarding and rule walk, the pod's accept. The
// difference over a batch, divided by its connections, is the CPU one new
// connection costs end to end; the rule walk is the part that grows with the
// service count. /proc/stat is machine-wide, so other load counts too: the
// sweep interleaves points to spread it evenly.
func cpuSeconds() (float64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, err
	}
	st, err := fs.Stat()
	if err != nil {
		return 0, err
	}
	c := st.CPUTotal
	return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ, nil
}

// kernelMemory is Slab + VmallocUsed from /proc/meminfo, in bytes: where
// iptables and nftables rules live. Its growth across a full sync is an
// approximate, machine-wide measure of the rules' kernel memory.
func kernelMemory() (int64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, err
	}
	mi, err := fs.Meminfo()
	if err != nil {
		return 0, err
	}
	var kb uint64
	if mi.Slab != nil {
		kb += *mi.Slab
	}
	if mi.VmallocUsed != nil {
		kb += *mi.VmallocUsed
	}
	return int64(kb) * 1024, nil
}
