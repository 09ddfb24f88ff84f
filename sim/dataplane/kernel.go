package dataplane

// Feature is a host kernel feature `svclab doctor` probes in a scratch
// network namespace (lab/host runs the probes).
type Feature string

// The kernel features doctor probes, in the order it lists them. The
// features named after a dataplane are what that dataplane's rules need.
const (
	FeatureNetns          Feature = "netns"
	FeatureVeth           Feature = "veth"
	FeatureDummy          Feature = "dummy"
	FeatureIPTablesLegacy         = Feature(IPTablesLegacy)
	FeatureIPTablesNFT            = Feature(IPTablesNFT)
	FeatureNFTables               = Feature(NFTables)
	FeatureIPVS                   = Feature(IPVS)
	FeatureConntrack      Feature = "conntrack"
	FeatureIPSet          Feature = "ipset"
)

// FeatureInfo is one kernel feature: the kernel configuration it needs and
// the program its probe runs.
type FeatureInfo struct {
	Name Feature
	// Config names the kernel options, e.g. "CONFIG_IP_VS".
	Config string
	// Tool is the program the probe runs ("" when it probes over netlink
	// or /proc); doctor does not probe when it is missing.
	Tool string
}

var features = []FeatureInfo{
	{Name: FeatureNetns, Config: "CONFIG_NET_NS"},
	{Name: FeatureVeth, Config: "CONFIG_VETH"},
	{Name: FeatureDummy, Config: "CONFIG_DUMMY"},
	{Name: FeatureIPTablesLegacy, Config: "CONFIG_IP_NF_IPTABLES, CONFIG_IP_NF_NAT, CONFIG_NETFILTER_XT_MATCH_STATISTIC", Tool: "iptables-legacy-restore"},
	{Name: FeatureIPTablesNFT, Config: "CONFIG_NF_TABLES_IPV4, CONFIG_NFT_COMPAT", Tool: "iptables-nft-restore"},
	{Name: FeatureNFTables, Config: "CONFIG_NF_TABLES_IPV4, CONFIG_NFT_NUMGEN", Tool: "nft"},
	{Name: FeatureIPVS, Config: "CONFIG_IP_VS"},
	{Name: FeatureConntrack, Config: "CONFIG_NF_CONNTRACK"},
	{Name: FeatureIPSet, Config: "CONFIG_IP_SET", Tool: "ipset"},
}

// Features returns the kernel features doctor probes, in its order.
func Features() []FeatureInfo { return append([]FeatureInfo(nil), features...) }

// FeatureOf returns the named kernel feature.
func FeatureOf(name Feature) (FeatureInfo, bool) {
	for _, f := range features {
		if f.Name == name {
			return f, true
		}
	}
	return FeatureInfo{}, false
}

// KernelNeeds is what a dataplane needs from the kernel and how doctor
// checks it.
type KernelNeeds struct {
	// Module names the kernel facility, e.g. "ip_vs".
	Module string
	// Features are the kernel features doctor probes for it besides netns
	// and veth, which every dataplane needs; doctor's "dataplanes" rows
	// say where it runs from them.
	Features []Feature
	// BPF is true when doctor checks it with lab/ebpf's probes (its "bpf"
	// section: BTF, tcx, cgroup/connect4, the verifier) instead of
	// Features; doctor lists no row for it.
	BPF bool
}

// VersionCmd is how the lab reports the version of the tool that
// programs a dataplane (results' source.tools, keyed by Key).
type VersionCmd struct {
	// Key names the tool in the report, e.g. "nft".
	Key string
	// Argv is the command whose first output line is the version.
	Argv []string
}
