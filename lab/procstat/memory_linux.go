package procstat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/prometheus/procfs"
)

// KernelMemory is the kernel memory in use where iptables and nftables rules
// and BPF maps live, in bytes: Slab and VmallocUsed (/proc/meminfo), less
// the free objects the slab caches hold (/proc/slabinfo: objects − active
// objects, × object size), less the connection-tracking caches' objects
// (connectionCaches) and less the per-CPU allocator's bookkeeping
// (/proc/vmallocinfo, perCPUChunkBookkeeping). Its growth across a sync is
// a machine-wide measure of what the rules hold.
//
// Slab alone counts pages, not objects: a ruleset flushed and loaded again
// (a sweep's repetition) reuses the objects the flush freed, whose pages the
// caches keep, so Slab hardly grew and undercounted iptables-nft's 5,000
// Services by a third (docs/measurements.md). Slab also holds kmalloc's
// large allocations, which have no cache in /proc/slabinfo (iptables-legacy's
// table of a few thousand rules).
//
// The per-CPU allocator's bookkeeping is left out for the same reason as
// the caches' free objects: it follows the allocator's state, not the
// rules. A load's per-CPU rule counters (iptables-legacy: 16 bytes a rule
// a CPU) take a new chunk only when the chunks the allocator holds are
// full, and each new chunk brings 2.17 MB of vmalloc'ed bookkeeping; chunks
// emptied by earlier loads are freed later by a kernel worker. In a sweep
// iptables-legacy's 50,000 Services measured 113.1 MB when its load left no
// new chunk and 117.7 to 128.4 MB when it left 2 to 7, 113.1 to 113.4 MB
// less those (docs/measurements.md). Reading /proc/slabinfo and
// /proc/vmallocinfo needs root.
func KernelMemory() (int64, error) {
	return kernelMemory(procfs.DefaultMountPoint)
}

// kernelMemory reads the meminfo, slabinfo and vmallocinfo files of the
// proc file system at root.
func kernelMemory(root string) (int64, error) {
	fs, mi, err := readMeminfo(root)
	if err != nil {
		return 0, err
	}
	slabs, err := fs.SlabInfo()
	if err != nil {
		return 0, fmt.Errorf("read /proc/slabinfo (needs root): %w", err)
	}
	bytes := kibibytes(mi.Slab, mi.VmallocUsed)
	for _, s := range slabs.Slabs {
		if connectionCaches[s.Name] {
			bytes -= s.ObjNum * s.ObjSize
			continue
		}
		bytes -= (s.ObjNum - s.ObjActive) * s.ObjSize
	}
	bookkeeping, err := readPerCPUChunkBookkeeping(filepath.Join(root, "vmallocinfo"))
	if err != nil {
		return 0, err
	}
	return bytes - bookkeeping, nil
}

// pageTables is the page tables in the meminfo file of the proc file
// system at root, in bytes.
func pageTables(root string) (int64, error) {
	_, mi, err := readMeminfo(root)
	if err != nil {
		return 0, err
	}
	return kibibytes(mi.PageTables, mi.SecPageTables), nil
}

// readMeminfo opens the proc file system at root and reads its meminfo.
func readMeminfo(root string) (procfs.FS, procfs.Meminfo, error) {
	fs, err := procfs.NewFS(root)
	if err != nil {
		return fs, procfs.Meminfo{}, fmt.Errorf("open %s: %w", root, err)
	}
	mi, err := fs.Meminfo()
	if err != nil {
		return fs, mi, fmt.Errorf("read /proc/meminfo: %w", err)
	}
	return fs, mi, nil
}

// kibibytes is the sum of meminfo's kB fields that are present, in bytes.
func kibibytes(fields ...*uint64) int64 {
	var kb uint64
	for _, v := range fields {
		if v != nil {
			kb += *v
		}
	}
	return int64(kb) * 1024
}

// readPerCPUChunkBookkeeping is perCPUChunkBookkeeping of the vmallocinfo
// file at path.
func readPerCPUChunkBookkeeping(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("read %s (needs root): %w", path, err)
	}
	defer f.Close()
	n, err := perCPUChunkBookkeeping(f, int64(os.Getpagesize()))
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	return n, nil
}

// connectionCaches are the slab caches of connections' state, which no
// rule load allocates and which traffic fills and its timeouts empty on
// their own schedule: conntrack's entries (nf_conntrack; a closed TCP
// connection's stays 120 s in TIME_WAIT) and IPVS's connections. A sweep's
// traffic before a load leaves thousands of entries that expire during
// the load: iptables-legacy's 50,000 Services measured 111.2 to 113.5 MB
// over 8 loads of one sweep with 1,000 connections a measurement, the two
// lowest while the nf_conntrack cache shrank by 0.8 and 2.3 MB, and 113.2
// to 113.5 MB with 100 connections (docs/measurements.md).
var connectionCaches = map[string]bool{"nf_conntrack": true, "ip_vs_conn": true}

// MemoryReading is one reading of kernel memory: the machine's
// (KernelMemory) and, when the process has joined a memory cgroup of its
// own (JoinMemoryCgroup), what the process and its children have charged
// to the kernel and what every group of that hierarchy has.
type MemoryReading struct {
	// Machine is KernelMemory: machine-wide, so another process's kernel
	// allocations and frees count too.
	Machine int64
	// Own is the kernel memory charged to the process's own memory
	// cgroup; valid when HasOwn.
	Own    int64
	HasOwn bool
	// AllCharged is the kernel memory charged to every group of the own
	// group's cgroup v1 hierarchy (its root group's count); valid when
	// HasAllCharged. Less Own, it is what other processes' groups hold.
	AllCharged    int64
	HasAllCharged bool
	// OthersPageTables is the page tables of the machine's processes
	// outside the own group: the machine's (/proc/meminfo PageTables and
	// SecPageTables) less the own group's processes' (VmPTE). Charged to
	// their groups, so in AllCharged, they are in neither Slab nor
	// VmallocUsed, so not in Machine; valid with HasAllCharged.
	OthersPageTables int64
}

// ReadKernelMemory reads the machine's kernel memory and, when the process
// has a memory cgroup of its own (JoinMemoryCgroup, WatchOwnMemoryCgroup)
// and it can be read, that group's.
func ReadKernelMemory() (MemoryReading, error) {
	m, err := KernelMemory()
	if err != nil {
		return MemoryReading{}, err
	}
	// An own group that cannot be read leaves the machine's growth
	// unchecked, as without one.
	own, has, _ := ownKernelBytes()
	all, hasAll, _ := allChargedKernelBytes()
	tables, err := pageTables(procfs.DefaultMountPoint)
	ownTables, hasOwnTables := ownPageTables()
	return MemoryReading{Machine: m, Own: own, HasOwn: has, AllCharged: all, HasAllCharged: hasAll && has && err == nil && hasOwnTables,
		OthersPageTables: tables - ownTables}, nil
}

// Growth is the machine's kernel memory growth from r to after, less what
// other processes' memory groups were charged meanwhile (AllCharged's
// growth less Own's and less their page tables', which Machine does not
// count; both readings must have it): what a load between the two readings
// took. The machine's figure counts every process's slab
// objects, and a compiler beside a sweep (make test's conformance suites)
// creates and frees megabytes of file system objects in a second: an
// nftables load of 5,000 Services measured 2.8 MB beside a loop of file
// creations against 5.0 to 5.2 at rest, its charges-corrected growth 5.1;
// processes mapping 600 MB and exiting beside it moved a corrected load by
// 1.2 MB until their page tables were left out, and the run's own page
// tables must stay in: its lab's processes exiting during a load moved it
// by 1 MB the other way (docs/measurements.md).
// Other processes' uncharged memory (kernel threads', the root group's)
// stays in the figure.
//
// It is an error when the process's own charges over the same time
// disagree with the (corrected) growth by more than ownChargeTolerance
// (another process allocated or freed uncharged kernel memory meanwhile,
// a namespace being deleted, say), as the figure would then be that
// process's. Without an own group (or in either reading) the growth is
// the machine's, unchecked.
//
// The two measures differ for one load too: nf_tables does not charge its
// hash tables' bucket arrays to the cgroup, and per-CPU rule counters are
// charged but not in Slab or VmallocUsed. Loaded alone, 5,000 and 20,000
// Services (docs/measurements.md) grew the machine's figure by 108-118% of
// the charge for nftables, 91-94% for iptables-nft and 100-110% for
// iptables-legacy.
func (r MemoryReading) Growth(after MemoryReading) (int64, error) {
	return r.GrowthBesides(after, 0)
}

// GrowthBesides is Growth for a load known to allocate uncharged bytes of
// kernel memory no memory cgroup is charged for (xt_recent's lists:
// iptables.RecentListBytes each): the own charge is checked with those
// added.
func (r MemoryReading) GrowthBesides(after MemoryReading, uncharged int64) (int64, error) {
	machine := after.Machine - r.Machine
	if !r.HasOwn || !after.HasOwn {
		return machine, nil
	}
	own := after.Own - r.Own
	if r.HasAllCharged && after.HasAllCharged {
		others := after.AllCharged - r.AllCharged - own
		machine -= others - (after.OthersPageTables - r.OthersPageTables)
	}
	if expected, band := own+uncharged, ownChargeTolerance(own+uncharged); machine < expected-band || machine > expected+band {
		return machine, fmt.Errorf("%w: the machine's changed by %+.1f MB less other groups' charges, this run's own charges by %+.1f MB%s",
			ErrMemoryDisturbed, float64(machine)/1e6, float64(own)/1e6, unchargedNote(uncharged))
	}
	return machine, nil
}

// unchargedNote names the uncharged bytes a load was expected to add.
func unchargedNote(uncharged int64) string {
	if uncharged == 0 {
		return ""
	}
	return fmt.Sprintf(" and %+.1f MB uncharged (xt_recent's lists)", float64(uncharged)/1e6)
}

// ErrMemoryDisturbed: the machine's kernel memory changed by more than the
// process's own load explains.
var ErrMemoryDisturbed = errors.New("kernel memory changed elsewhere on the machine during the load")

// ownChargeTolerance is how far the machine's growth may be from the own
// charge of a load: 20% of it (the measures' own difference is up to 15%)
// and 1 MB (a first load into a namespace, and the machine's background).
func ownChargeTolerance(own int64) int64 {
	return max(own, -own)/5 + 1<<20
}
