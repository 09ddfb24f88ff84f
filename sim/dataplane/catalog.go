package dataplane

import "image/color"

// The iptables variants (Info.IPTablesBackend).
const (
	BackendLegacy = "legacy"
	BackendNFT    = "nft"
)

// notModelledBPF is why the cost model leaves the eBPF dataplanes out.
const notModelledBPF = "a BPF hash-map lookup, constant in the number of services, but it loads no kube-proxy payload " +
	"whose size and sync time the model predicts, and no calibration run measured it"

// all is the catalog, in the order tables, plots and legends list
// dataplanes.
var all = []Info{
	{Name: IPTablesLegacy, Summary: "kube-proxy iptables mode, legacy xtables backend",
		Mode: ModeIPTables, IPTablesBackend: BackendLegacy,
		Tools: []string{"iptables-legacy", "iptables-legacy-restore", "iptables-legacy-save"}, Packages: []string{"iptables"},
		Version:      VersionCmd{Key: "iptables-legacy", Argv: []string{"iptables-legacy", "--version"}},
		RuleCounters: true, Sync: RestoreText, Up: true, PartialCreates: true,
		Kernel: KernelNeeds{Module: "ip_tables", Features: []Feature{FeatureIPTablesLegacy, FeatureConntrack}},
		Lookup: LinearWalk, FullSyncQuadratic: true, RulesCheckedSorted: true, RestoreReplacesTable: true, Colour: color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}}, // vermillion
	{Name: IPTablesNFT, Summary: "kube-proxy iptables mode through iptables-nft (nf_tables backend)",
		Mode: ModeIPTables, IPTablesBackend: BackendNFT,
		Tools: []string{"iptables-nft", "iptables-nft-restore", "iptables-nft-save"}, Packages: []string{"iptables"},
		Version:      VersionCmd{Key: "iptables-nft", Argv: []string{"iptables-nft", "--version"}},
		RuleCounters: true, Sync: RestoreText, Up: true, PartialCreates: true,
		SyncGrowthNote:   "iptables-nft-restore --noflush (1.8.9), which kube-proxy runs, walks a sorted list of chain names for every chain a command names, about 8·N² strcmp for N Services, each slower once the list outgrows the caches (native payloads, one VM: 24-26 s of user time at 10,000 Services, 70 s at 15,000, 246-284 s at 20,000; results/iptables-nft-restore); a calibration that timed that walk (svclab plan calibrate) prices the full and incremental syncs with it",
		ChainListRestore: true,
		Kernel:           KernelNeeds{Module: "nf_tables", Features: []Feature{FeatureIPTablesNFT, FeatureConntrack}},
		Lookup:           LinearWalk, Colour: color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}}, // blue
	{Name: NFTables, Summary: "kube-proxy nftables mode (table ip kube-proxy, verdict maps, numgen)",
		Mode:  ModeNFTables,
		Tools: []string{"nft"}, Packages: []string{"nftables"},
		Version:      VersionCmd{Key: "nft", Argv: []string{"nft", "--version"}},
		RuleCounters: false, Sync: RestoreText, Up: true, PartialCreates: true, ChainDump: true,
		Kernel: KernelNeeds{Module: "nf_tables", Features: []Feature{FeatureNFTables, FeatureConntrack}},
		Lookup: MapLookup, Colour: color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}}, // green
	{Name: IPVS, Summary: "kube-proxy IPVS mode (virtual/real servers, ipsets, kube-ipvs0)",
		Mode: ModeIPVS, IPTablesBackend: BackendLegacy,
		Tools: []string{"ipset", "iptables-legacy-restore"}, Packages: []string{"ipset", "iptables"},
		// ipvsadm --version fails without IPVS in the kernel; ask dpkg.
		Version:      VersionCmd{Key: "ipvsadm", Argv: []string{"dpkg-query", "-W", "-f=ipvsadm ${Version}", "ipvsadm"}},
		RuleCounters: false, Sync: Netlink, UnchargedKernelMemory: true, RulesCheckedSorted: true, RestoreReplacesTable: true,
		Kernel: KernelNeeds{Module: "ip_vs", Features: []Feature{FeatureIPVS, FeatureDummy, FeatureIPSet, FeatureIPTablesLegacy, FeatureConntrack}},
		Lookup: MapLookup, Colour: color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}}, // purple
	{Name: EBPF, Summary: "Cilium-style service LB: tc (tcx) programs on client veths, BPF hash maps",
		Mode: ModeNone, RoutesAs: ModeIPTables,
		RuleCounters: false, Sync: BPFMaps,
		Kernel: KernelNeeds{Module: "bpf", BPF: true},
		Lookup: NotModelled, LookupNote: notModelledBPF,
		Colour: color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}}, // sky blue
	{Name: EBPFSock, Summary: "socket LB: cgroup/connect4 rewrites the destination at connect()",
		Mode: ModeNone, RoutesAs: ModeIPTables,
		RuleCounters: false, Sync: BPFMaps,
		Kernel: KernelNeeds{Module: "cgroup-bpf", BPF: true},
		Lookup: NotModelled, LookupNote: notModelledBPF,
		Colour:    color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, // orange
		AtConnect: true},
}
