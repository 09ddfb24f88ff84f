package runner

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/cgroup"
	"github.com/svclab/svclab/lab/chainlist"
	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/nftdump"
	"github.com/svclab/svclab/lab/nftsetwalk"
	"github.com/svclab/svclab/lab/pktgen"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/lab/session"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/results"
)

// Kernel is the real Machine: labs of network namespaces and veths on this
// host's kernel, real pod servers, real traffic.
type Kernel struct{}

// BuildLab builds the topology and starts a server on every endpoint port.
func (Kernel) BuildLab(ctx context.Context, spec machine.LabSpec) (machine.Lab, error) {
	return newKernelLab(ctx, spec)
}

// CPUSeconds is the machine's busy CPU time (procstat.CPUTimes.Busy). The
// difference over a batch, divided by its connections, is the CPU one new
// connection costs end to end; the rule walk is the part that grows with the
// service count. /proc/stat is machine-wide, so other load counts too: the
// sweep interleaves points to spread it evenly.
func (Kernel) CPUSeconds() (float64, error) {
	c, err := procstat.ReadCPU()
	return c.Busy(), err
}

// OutsideCPU reads the CPU time spent outside this process's tree
// (procstat.ReadOutsideCPU).
func (Kernel) OutsideCPU() (procstat.OutsideCPU, error) { return procstat.ReadOutsideCPU(os.Getpid()) }

// KernelMemory reads the machine's kernel memory and the run's own memory
// cgroup's (see procstat.ReadKernelMemory and Hold).
func (Kernel) KernelMemory() (procstat.MemoryReading, error) { return procstat.ReadKernelMemory() }

// ChainListWalk times the chain-list walk on this machine (lab/chainlist).
func (Kernel) ChainListWalk(ctx context.Context) ([]results.ChainListStep, error) {
	return chainlist.Measure(ctx, chainlist.Layouts, chainlist.DefaultOptions)
}

// ChainDumpWalk times the chain dump's walk on this machine
// (lab/nftdump), in namespaces under prefix.
func (Kernel) ChainDumpWalk(ctx context.Context, prefix string) ([]results.ChainListStep, error) {
	opts := nftdump.DefaultOptions
	opts.Prefix = prefix
	return nftdump.Measure(ctx, opts)
}

// AnonymousSetWalk times the kernel's walks per anonymous set on this
// machine (lab/nftsetwalk), in a namespace under prefix.
func (Kernel) AnonymousSetWalk(ctx context.Context, prefix string) ([]results.AnonymousSetStep, error) {
	opts := nftsetwalk.DefaultOptions
	opts.Prefix = prefix
	return nftsetwalk.Measure(ctx, opts)
}

// Hold takes the run's lease (see session.RunLease) and moves the process
// into a memory cgroup of the run's, <prefix>-kmem (recorded in the lease,
// so cleanup removes it after a crash), so that a load's kernel memory is
// told from another process's (procstat.MemoryReading.Growth). Where the
// host has no cgroup v1 memory controller (cgroup v2 only) it reads the
// cgroup2 group the process is in instead (procstat.WatchOwnMemoryCgroup);
// where neither can be read the run goes on without: its kernel memory is
// the machine's growth, unchecked.
func (Kernel) Hold(prefix string) (machine.Hold, error) {
	l, err := session.AcquireRun(prefix)
	if err != nil {
		return nil, err
	}
	path, err := procstat.MemoryCgroupPath(prefix + memoryCgroupSuffix)
	if errors.Is(err, cgroup.ErrNotMounted) {
		if _, err := procstat.WatchOwnMemoryCgroup(); err != nil {
			return l, nil
		}
		return memoryCgroupHold{l}, nil
	}
	if err != nil {
		return l, nil
	}
	if err := l.AddCgroup(path); err != nil {
		return nil, l.Done(err)
	}
	if err := procstat.JoinMemoryCgroup(path); err != nil {
		return l, nil
	}
	return memoryCgroupHold{l}, nil
}

// memoryCgroupSuffix ends the name of a run's memory cgroup.
const memoryCgroupSuffix = "-kmem"

// memoryCgroupHold leaves the run's memory cgroup before the lease ends.
type memoryCgroupHold struct{ machine.Hold }

// Done moves the process out of the run's memory cgroup and removes it (or
// stops watching its own cgroup2 group), and ends the lease.
func (h memoryCgroupHold) Done(err error) error {
	return h.Hold.Done(errors.Join(err, procstat.LeaveMemoryCgroup()))
}

// OtherRuns lists the leases of live owners (lease.Live, which takes no
// lock) that are neither prefix's nor this process's (a test binary's own
// labs).
func (Kernel) OtherRuns(prefix string) ([]machine.OtherRun, error) {
	live, err := lease.Live()
	if err != nil {
		return nil, fmt.Errorf("list svclab's leases in %s: %w", lease.Dir, err)
	}
	var out []machine.OtherRun
	for _, r := range live {
		if r.Prefix == prefix || r.Owner.PID == os.Getpid() {
			continue
		}
		out = append(out, machine.OtherRun{Run: r.Prefix, Kind: r.Kind, PID: r.Owner.PID})
	}
	return out, nil
}

// Prerequisites checks root, working namespaces and every tool the
// dataplanes need.
func (Kernel) Prerequisites(dataplanes []string) error {
	return host.Error(host.Check(host.Requirements{Root: true, Netns: true, Binaries: host.ToolsFor(dataplanes)}))
}

// Dataplane returns the named dataplane for the lab's node, built by the
// constructor its package registered with lab/apply (see dataplanes_linux.go).
func (l *kernelLab) Dataplane(name string, s apply.Settings) (apply.Dataplane, error) {
	return apply.Open(name, l.node(), s)
}

// node is what a dataplane constructor gets of the lab.
func (l *kernelLab) node() apply.Node {
	return apply.Node{Netns: l.topo.NodeNetns, ClientNetns: l.topo.ClientNetns, ClientVeth: l.topo.ClientVeth,
		RunPrefix: topo.RunPrefix(l.topo.Prefix)}
}

// Connect runs traffic from the client namespace, or from the external
// client when spec.Source is one of its addresses.
func (l *kernelLab) Connect(ctx context.Context, spec traffic.Spec, sink func(traffic.Record)) (traffic.Summary, error) {
	spec.Netns = l.topo.ClientNetns
	for _, ip := range l.topo.ExternalIPs {
		if spec.Source.IsValid() && ip == spec.Source {
			spec.Netns = l.topo.ExternalNetns
		}
	}
	return traffic.Run(ctx, spec, sink)
}

// ServerSources is each pod server's per-source counts.
func (l *kernelLab) ServerSources() map[string]map[netip.Addr]uint64 { return l.servers.Sources() }

// Probe measures connect latency from the client namespace.
func (l *kernelLab) Probe(ctx context.Context, spec traffic.ProbeSpec) (traffic.ProbeResult, error) {
	spec.Netns = l.topo.ClientNetns
	return traffic.Probe(ctx, spec)
}

// ServerStats is each pod server's counts.
func (l *kernelLab) ServerStats() map[string]podserver.Stats { return l.servers.Stats() }

// PodOf names the pod that owns ip.
func (l *kernelLab) PodOf(ip netip.Addr) string { return l.podOf[ip] }

// FlushConntrack empties the node's conntrack table.
func (l *kernelLab) FlushConntrack() error { return netns.FlushConntrack(l.topo.NodeNetns) }

// PacketRate finds the knee of the node's new-flow rate for target (see
// pktgen.Knee), starting at startRate flows/s.
func (l *kernelLab) PacketRate(ctx context.Context, target netip.AddrPort, startRate float64) (pktgen.Rate, error) {
	spec := pktgen.KneeSpec{ClientNetns: l.topo.ClientNetns, ClientIP: l.topo.ClientIP, NodeNetns: l.topo.NodeNetns,
		Target: target, StartRate: startRate}
	for _, p := range l.topo.Pods {
		spec.PodNetns = append(spec.PodNetns, p.Netns)
	}
	rate, err := pktgen.Knee(ctx, spec)
	if err != nil {
		return rate, fmt.Errorf("packet rate in lab %s: %w", l.topo.Prefix, err)
	}
	return rate, nil
}
