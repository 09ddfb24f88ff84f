package machine

import (
	"context"
	"net/netip"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/pktgen"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/lab/traffic"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
)

// Machine is everything a run asks of the host: labs to build and the
// machine-wide CPU and kernel memory readings. lab/runner's Kernel is the real one;
// lab/labfake has a simulated one, so whole runs are tested without root.
type Machine interface {
	// BuildLab builds the topology spec asks for and starts its pod
	// servers. It stops between objects when ctx ends, removing what it
	// made.
	BuildLab(ctx context.Context, spec LabSpec) (Lab, error)
	// CPUSeconds is the machine's busy CPU time so far.
	CPUSeconds() (float64, error)
	// KernelMemory reads the kernel memory that holds rules and maps:
	// the machine's and, where the run has a memory cgroup, the run's own
	// charges, which tell a load's growth from another process's.
	KernelMemory() (procstat.MemoryReading, error)
	// ChainListWalk times one step of iptables-nft-restore's chain-list
	// walk at each of lab/chainlist's lengths, on this machine.
	ChainListWalk(ctx context.Context) ([]results.ChainListStep, error)
	// ChainDumpWalk times one step of the kernel's walk through a table's
	// chains while it dumps them to nft, packed and spread, at each of
	// lab/nftdump's sizes, on this machine, in namespaces under prefix.
	ChainDumpWalk(ctx context.Context, prefix string) ([]results.ChainListStep, error)
	// AnonymousSetWalk times one step of each of the kernel's two walks
	// per anonymous set while nft loads a table, at each of
	// lab/nftsetwalk's sizes, on this machine, in a namespace under
	// prefix.
	AnonymousSetWalk(ctx context.Context, prefix string) ([]results.AnonymousSetStep, error)
	// Hold claims the run prefix for this process while the run lives
	// (the kernel's: a lease, see lab/lease).
	Hold(prefix string) (Hold, error)
	// OtherRuns lists the other svclab runs, labs and privileged tests live
	// on the machine now (the kernel's: their leases, lab/lease), not
	// prefix's own nor this process's: what shares the CPUs with a run.
	OtherRuns(prefix string) ([]OtherRun, error)
	// OutsideCPU is the CPU time the machine has spent outside this
	// process and its descendants since boot (the kernel's: /proc,
	// procstat.ReadOutsideCPU): other programs' load, which holds no lease.
	OutsideCPU() (procstat.OutsideCPU, error)
	// Prerequisites says what the machine lacks to run the dataplanes
	// (root, tools, namespaces), with the fix; nil when nothing.
	Prerequisites(dataplanes []string) error
}

// OtherRun is another svclab lease holder live on the machine.
type OtherRun struct {
	// Run is its run prefix; Kind its lease's kind ("run", "up", "test").
	Run, Kind string
	// PID is its owner process.
	PID int
}

// Lab is one built topology: a node, a client, pods answering on their
// endpoints and, for synthetic services, a sink.
type Lab interface {
	// Dataplane returns the named dataplane (sim/dataplane) programming
	// this lab's node.
	Dataplane(name string, s apply.Settings) (apply.Dataplane, error)
	// Connect opens spec's connections from the client (spec.Netns is
	// ignored): the namespace that owns spec.Source (the external client
	// for one of its addresses), the client's when it is zero. It calls
	// sink with each record.
	Connect(ctx context.Context, spec traffic.Spec, sink func(traffic.Record)) (traffic.Summary, error)
	// Probe measures connect latency from the client (spec.Netns is ignored).
	Probe(ctx context.Context, spec traffic.ProbeSpec) (traffic.ProbeResult, error)
	// PacketRate finds the node's new-flow knee for target.
	PacketRate(ctx context.Context, target netip.AddrPort, startRate float64) (pktgen.Rate, error)
	// ServerStats is what each pod's server has counted so far, by pod.
	ServerStats() map[string]podserver.Stats
	// ServerSources is how many connections each pod accepted so far per
	// source address it saw, by pod.
	ServerSources() map[string]map[netip.Addr]uint64
	// PodOf names the pod that owns an endpoint IP ("" if none).
	PodOf(ip netip.Addr) string
	// FlushConntrack empties the node's connection tracking table.
	FlushConntrack() error
	// Close stops the servers and removes the topology.
	Close() error
}

// Hold is a run's claim on the machine.
type Hold interface {
	// Done ends the claim once the run has torn down; it returns err
	// joined with anything the run could not remove, and how to remove it.
	Done(err error) error
}

// LabSpec says what a lab must host.
type LabSpec struct {
	Prefix       string
	Targets      model.Slice    // services whose endpoints become real pods
	FillerCIDR   netip.Prefix   // owned by the sink pod when Fillers is true
	Fillers      bool           // synthetic services exist
	FillerPort   int            // the port synthetic endpoints listen on
	ServiceCIDRs []netip.Prefix // for a client on the node
	ClientOnNode bool
	// NodeName is the node whose rules are rendered: endpoints of other
	// nodes live behind a second node namespace (SecondNode).
	NodeName   string
	SecondNode bool
	// NodeIP and NodeIPv6 are the node's addresses (zero: none).
	NodeIP, NodeIPv6 netip.Addr
	// ClientIPv6 is the client pod's IPv6 address.
	ClientIPv6 netip.Addr
	// ExternalIPs, when set, are the addresses of an external client on
	// the node's uplink.
	ExternalIPs []netip.Addr
	// PlantRules, when positive, is a planted slowdown: that many
	// never-matching rules every packet through the node passes
	// (apply.Plant).
	PlantRules int
}
