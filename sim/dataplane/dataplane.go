// Package dataplane is svclab's one list of dataplanes, and the only
// place that names one or a kube-proxy mode: for each dataplane the
// kube-proxy mode it loads, the tools and packages it needs on the host,
// the command that reports their version, whether the kernel keeps a
// per-rule counter for every endpoint, how rules reach the kernel, its
// kernel needs and how doctor checks them, its lookup kind for the cost
// model and whether its full sync grows quadratically, its plot colour,
// and whether it balances at connect(). Every
// other package (scenario validation, the lab's constructors and
// prerequisite checks, doctor, the fake, plots, compare, cost, the CLI)
// reads it from here; a test fails on a dataplane or mode name spelled
// anywhere else.
package dataplane

import (
	"fmt"
	"image/color"
	"strings"
)

// Name is a dataplane's name as scenarios and flags spell it.
type Name string

// The dataplanes svclab knows.
const (
	IPTablesLegacy Name = "iptables-legacy"
	IPTablesNFT    Name = "iptables-nft"
	NFTables       Name = "nftables"
	IPVS           Name = "ipvs"
	EBPF           Name = "ebpf"
	EBPFSock       Name = "ebpf-sock"
)

// Default is the dataplane svclab runs when none is named (svclab up, a
// fairness run without dataplanes).
const Default = IPTablesNFT

// SyncKind says how a dataplane's rules reach the kernel.
type SyncKind string

// How rules reach the kernel.
const (
	// RestoreText: rendered text loaded by a restore tool (iptables-*-restore, nft -f).
	RestoreText SyncKind = "restore-text"
	// Netlink: objects programmed over (generic) netlink (IPVS virtual and real servers).
	Netlink SyncKind = "netlink"
	// BPFMaps: entries written into BPF maps read by attached programs.
	BPFMaps SyncKind = "bpf-maps"
	// External: a separate engine process (kube-proxy's own code) programs the kernel itself.
	External SyncKind = "external"
)

// Info is everything svclab knows about one dataplane. Every package that
// treats dataplanes differently reads these fields; none names one.
type Info struct {
	Name Name
	// Summary is one line for help text and reports.
	Summary string
	// Mode is the kube-proxy mode whose payload it loads (ModeNone: none).
	Mode Mode
	// RoutesAs is, for a dataplane that loads no kube-proxy payload (a
	// kube-proxy replacement), the mode whose routing it owes: the eBPF
	// dataplanes are held to the rule chains' semantics (iptables), not to
	// IPVS's per-virtual-server Local policies. See RoutingMode.
	RoutesAs Mode
	// IPTablesBackend is the iptables variant its iptables rules go
	// through ("legacy" or "nft"), "" when it writes none; kube-proxy's
	// driver runs its iptables commands as that variant.
	IPTablesBackend string
	// Tools are the host programs the lab runs for it (IPVS servers go over
	// netlink: ipvsadm is only installed for cross-checks).
	Tools []string
	// Packages are the Debian packages that provide Tools.
	Packages []string
	// Version is how the lab reports the version of the tool that
	// programs it; a zero Version reports none.
	Version VersionCmd
	// RuleCounters is true when the kernel keeps a packet counter per
	// endpoint rule in the rules kube-proxy writes (the fairness witness);
	// otherwise the lab uses the dataplane's own counters (IPVS real
	// servers, BPF maps) or conntrack events.
	RuleCounters bool
	// Sync is how rules reach the kernel.
	Sync SyncKind
	// Kernel is what it needs from the kernel and how doctor checks it.
	Kernel KernelNeeds
	// Lookup is how it finds a new connection's service, as the cost
	// model scales it; NotModelled leaves it out of the model, and
	// LookupNote says why.
	Lookup     LookupKind
	LookupNote string
	// FullSyncQuadratic is true when its restore tool's time has a term
	// quadratic in the chains a full sync creates, so that the cost model
	// fits its full sync as a quadratic once sizes far enough apart show
	// it. iptables-legacy: libiptc keeps user chains in one name-sorted
	// list and rebuilds that list's index by walking all of it every 355
	// chains it creates (results/iptables-legacy-restore).
	FullSyncQuadratic bool
	// RulesCheckedSorted is true when its restore tool lays a table's user
	// chains out sorted by name (libiptc), so the kernel checks their
	// rules' matches in that order when it replaces the table; otherwise
	// they are checked as the payload adds them (iptables-nft's rules, one
	// nf_tables rule each). xt_recent appends a list when it checks the
	// first rule naming it, and finds a list by walking them all, so this
	// order prices ClientIP affinity (svclab plan).
	RulesCheckedSorted bool
	// RestoreReplacesTable is true when every restore replaces a whole
	// table in the kernel (iptables-legacy: libiptc commits the table it
	// read back with the changes applied), so a partial sync checks every
	// rule's matches again and destroys the old ones; otherwise only the
	// changed chains' rules are replaced (iptables-nft).
	RestoreReplacesTable bool
	// SyncGrowthNote, when set, says why its syncs can grow faster past
	// the sizes a calibration timed than any form fitted below them:
	// svclab plan then warns when it extrapolates a sync it has not priced
	// by mechanism (ChainListRestore). iptables-nft: iptables-nft-restore
	// --noflush (1.8.9) spends user time that grows faster than
	// quadratically in chains (results/iptables-nft-restore).
	SyncGrowthNote string
	// ChainListRestore is true when its restore tool walks a sorted list
	// of chain names for every chain a command names (iptables-nft-restore
	// --noflush, 1.8.9: sim/iptables.ChainListWork): a sweep that times its
	// syncs measures a step of that walk on the machine (lab/chainlist),
	// and the cost model prices a payload's steps with it.
	ChainListRestore bool
	// ChainDump is true when its tool lists the kernel's chains before
	// every change (nft fills its cache with a netlink dump), and the
	// kernel resumes that dump for every message by walking the table's
	// chain list from its start, about C²/2k steps for C chains in
	// messages of k: a sweep that probes its syncs (sweep.syncProbe)
	// measures a step of that walk on the machine (lab/nftdump), and the
	// cost model prices an
	// incremental sync's walk with it (results/nft-chain-placement).
	ChainDump bool
	// PartialCreates is true when the lab applies Service creations in
	// one partial sync, as kube-proxy's does (lab/apply's Change.Created):
	// a sweep can time a batch of them (sweep.incrementalBatchKind:
	// services) for svclab plan's programming latency under Service
	// churn.
	PartialCreates bool
	// Colour is its colour in plots and compare's overlays (Okabe-Ito,
	// colour-blind safe).
	Colour color.RGBA
	// Up is true when `svclab up` can leave it running on the host: it
	// needs no guest kernel and no process held in a cgroup.
	Up bool
	// UnchargedKernelMemory is true when the kernel allocates most of its
	// objects without memory-cgroup accounting, so that a load's kernel
	// memory growth cannot be checked against what the run charged to its
	// own memory cgroup (lab/procstat) and is recorded unchecked. IPVS:
	// ip_vs_ctl.c allocates virtual and real servers with GFP_KERNEL, not
	// GFP_KERNEL_ACCOUNT; in the user-mode-linux guest (Linux 6.1), 1,000
	// to 10,000 Services grew the machine's kernel memory by 2.4-18.7 MB
	// and the run's cgroup2 group by 0.5-2.9 MB. nf_tables, x_tables and
	// BPF maps are charged.
	UnchargedKernelMemory bool
	// AtConnect is true when it balances at connect() (socket LB): packets
	// sent without a connect, like the packet-rate mode's raw SYNs, are
	// not translated, so that mode does not apply to it.
	AtConnect bool
}

// RoutingMode is the kube-proxy mode whose rules say where the dataplane
// sends a connection (sim/route): Mode, or RoutesAs when it loads none.
func (d Info) RoutingMode() Mode {
	if d.Mode != ModeNone {
		return d.Mode
	}
	return d.RoutesAs
}

// HashedByNFTables reports whether the dataplane's rules are held by
// nf_tables (nftables mode, or iptables through iptables-nft), whose kernel
// keeps each table's chains and each set's or map's elements in a
// resizable hash table (lib/rhashtable.c): the cost model adds those
// tables' bucket arrays to its kernel memory.
func (d Info) HashedByNFTables() bool {
	return d.Mode == ModeNFTables || (d.Mode == ModeIPTables && d.IPTablesBackend == BackendNFT)
}

// All returns every dataplane, in a fixed order.
func All() []Info { return append([]Info(nil), all...) }

// Names returns every dataplane's name, in the order of All.
func Names() []string {
	out := make([]string, len(all))
	for i, d := range all {
		out[i] = string(d.Name)
	}
	return out
}

// Lookup returns the dataplane called name.
func Lookup(name string) (Info, bool) {
	for _, d := range all {
		if string(d.Name) == name {
			return d, true
		}
	}
	return Info{}, false
}

// Parse returns the dataplane called name, or an error that lists the
// known names.
func Parse(name string) (Info, error) {
	if d, ok := Lookup(name); ok {
		return d, nil
	}
	return Info{}, fmt.Errorf("unknown dataplane %q (use %s)", name, strings.Join(Names(), ", "))
}

// ToolsFor returns the host tools the named dataplanes need, each once, in
// first-seen order. Unknown names are skipped.
func ToolsFor(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		d, ok := Lookup(n)
		if !ok {
			continue
		}
		for _, t := range d.Tools {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// UpNames returns the dataplanes `svclab up` can leave running, in the
// order of All.
func UpNames() []string {
	var out []string
	for _, d := range all {
		if d.Up {
			out = append(out, string(d.Name))
		}
	}
	return out
}

// Compare orders dataplane names as All lists them, then unknown names
// alphabetically; for sorting tables, plots and fits.
func Compare(a, b string) int {
	if d := rank(a) - rank(b); d != 0 {
		return d
	}
	return strings.Compare(a, b)
}

func rank(name string) int {
	for i, d := range all {
		if string(d.Name) == name {
			return i
		}
	}
	return len(all)
}
