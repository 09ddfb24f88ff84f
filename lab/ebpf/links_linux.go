package ebpf

import (
	"fmt"

	"github.com/cilium/ebpf/link"
)

// LinkInfo is one BPF link of the whole machine, as `bpftool link show`
// lists it.
type LinkInfo struct {
	ID      link.ID
	Type    link.Type
	Program uint32
	// Ifindex is set for tcx links (an index in the namespace of the
	// interface, which the kernel does not report).
	Ifindex uint32
	// CgroupID is set for cgroup links (the cgroup directory's inode).
	CgroupID uint64
}

// ListLinks returns every BPF link in the kernel, for a check that a run
// leaves the host as it found it (compare before and after).
func ListLinks() ([]LinkInfo, error) {
	var out []LinkInfo
	it := new(link.Iterator)
	defer it.Close()
	for it.Next() {
		info, err := it.Link.Info()
		if err != nil {
			return nil, fmt.Errorf("ebpf: info of link %d: %w", it.ID, err)
		}
		li := LinkInfo{ID: info.ID, Type: info.Type, Program: uint32(info.Program)}
		if x := info.TCX(); x != nil {
			li.Ifindex = x.Ifindex
		}
		if x := info.Cgroup(); x != nil {
			li.CgroupID = x.CgroupId
		}
		out = append(out, li)
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("ebpf: list links: %w", err)
	}
	return out, nil
}
