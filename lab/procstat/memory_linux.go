package procstat

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// KernelMemory is the kernel memory in use where iptables and nftables rules
// and BPF maps live, in bytes: Slab and VmallocUsed (/proc/meminfo), less
// the free objects the slab caches hold (/proc/slabinfo: objects − active
// objects, × object size). Its growth across a sync is a machine-wide
// measure of what the rules hold.
//
// Slab alone counts pages, not objects: a ruleset flushed and loaded again
// (a sweep's repetition) reuses the objects the flush freed, whose pages the
// caches keep, so Slab hardly grew and undercounted iptables-nft's 5,000
// Services by a third (docs/measurements.md). Slab also holds kmalloc's
// large allocations, which have no cache in /proc/slabinfo (iptables-legacy's
// table of a few thousand rules). Reading /proc/slabinfo needs root.
func KernelMemory() (int64, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, fmt.Errorf("open /proc: %w", err)
	}
	return kernelMemory(fs)
}

// kernelMemory reads the meminfo and slabinfo files of fs.
func kernelMemory(fs procfs.FS) (int64, error) {
	mi, err := fs.Meminfo()
	if err != nil {
		return 0, fmt.Errorf("read /proc/meminfo: %w", err)
	}
	slabs, err := fs.SlabInfo()
	if err != nil {
		return 0, fmt.Errorf("read /proc/slabinfo (needs root): %w", err)
	}
	var kb uint64
	for _, v := range []*uint64{mi.Slab, mi.VmallocUsed} {
		if v != nil {
			kb += *v
		}
	}
	bytes := int64(kb) * 1024
	for _, s := range slabs.Slabs {
		bytes -= (s.ObjNum - s.ObjActive) * s.ObjSize
	}
	return bytes, nil
}
