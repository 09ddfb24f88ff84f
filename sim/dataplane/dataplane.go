// Package dataplane is svclab's one list of dataplanes: their names, the
// tools each needs on the host, whether the kernel keeps a per-rule counter
// for every endpoint, how rules reach the kernel, and which kernel feature
// they need. Every other package (scenario validation, the lab's
// prerequisite checks, doctor, plots, compare, cost) reads it from here.
package dataplane

import (
	"fmt"
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

// Info is everything svclab knows about one dataplane.
type Info struct {
	Name Name
	// Summary is one line for help text and reports.
	Summary string
	// Tools are the host programs the lab runs for it (IPVS servers go over
	// netlink: ipvsadm is only installed for cross-checks).
	Tools []string
	// Packages are the Debian packages that provide Tools.
	Packages []string
	// RuleCounters is true when the kernel keeps a packet counter per
	// endpoint rule in the rules kube-proxy writes (the fairness witness);
	// otherwise the lab uses the dataplane's own counters (IPVS real
	// servers, BPF maps) or conntrack events.
	RuleCounters bool
	// Sync is how rules reach the kernel.
	Sync SyncKind
	// KernelFeature names the kernel facility it needs, e.g. "ip_vs".
	KernelFeature string
	// AtConnect is true when it balances at connect() (socket LB): packets
	// sent without a connect, like the packet-rate mode's raw SYNs, are
	// not translated, so that mode does not apply to it.
	AtConnect bool
	// LocalPolicyPerServer is true when Local traffic policies pick the
	// endpoints per virtual server, whatever the client (kube-proxy's IPVS
	// mode, syncEndpoint in pkg/proxy/ipvs/proxier.go): every client of a
	// Local virtual server reaches the node's local endpoints and, when the
	// node has none, the cluster's (kubernetes#97081) instead of being
	// dropped. Otherwise (the rule chains of iptables and nftables modes)
	// pods and the node itself short-circuit to the cluster's endpoints
	// under externalTrafficPolicy Local, and a Local policy with no local
	// endpoint drops.
	LocalPolicyPerServer bool
	// KubeProxyMode is kube-proxy's --proxy-mode that writes this
	// dataplane's rules ("iptables", "nftables", "ipvs"), "" when kube-proxy
	// has none (the eBPF dataplanes): the kube-proxy engine cannot run it.
	KubeProxyMode string
}

var all = []Info{
	{Name: IPTablesLegacy, Summary: "kube-proxy iptables mode, legacy xtables backend",
		Tools: []string{"iptables-legacy", "iptables-legacy-restore", "iptables-legacy-save"}, Packages: []string{"iptables"},
		RuleCounters: true, Sync: RestoreText, KernelFeature: "ip_tables", KubeProxyMode: "iptables"},
	{Name: IPTablesNFT, Summary: "kube-proxy iptables mode through iptables-nft (nf_tables backend)",
		Tools: []string{"iptables-nft", "iptables-nft-restore", "iptables-nft-save"}, Packages: []string{"iptables"},
		RuleCounters: true, Sync: RestoreText, KernelFeature: "nf_tables", KubeProxyMode: "iptables"},
	{Name: NFTables, Summary: "kube-proxy nftables mode (table ip kube-proxy, verdict maps, numgen)",
		Tools: []string{"nft"}, Packages: []string{"nftables"},
		RuleCounters: false, Sync: RestoreText, KernelFeature: "nf_tables", KubeProxyMode: "nftables"},
	{Name: IPVS, Summary: "kube-proxy IPVS mode (virtual/real servers, ipsets, kube-ipvs0)",
		Tools: []string{"ipset", "iptables-legacy-restore"}, Packages: []string{"ipset", "iptables"},
		RuleCounters: false, Sync: Netlink, KernelFeature: "ip_vs", LocalPolicyPerServer: true, KubeProxyMode: "ipvs"},
	{Name: EBPF, Summary: "Cilium-style service LB: tc (tcx) programs on client veths, BPF hash maps",
		Tools: nil, Packages: nil,
		RuleCounters: false, Sync: BPFMaps, KernelFeature: "bpf"},
	{Name: EBPFSock, Summary: "socket LB: cgroup/connect4 rewrites the destination at connect()",
		Tools: nil, Packages: nil,
		RuleCounters: false, Sync: BPFMaps, KernelFeature: "cgroup-bpf", AtConnect: true},
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
