package render

import (
	"net/netip"
	"slices"
)

// Config is one kube-proxy's configuration as svclab models it where it
// changes the rules: the release, the feature gates, the flags, the IPVS
// scheduler and the host facts kube-proxy probes. The zero value is the
// newest release with its defaults on a current host.
//
// It is the one carrier of that configuration: each renderer's options
// are derived from it (OptionsFor in sim/render/iptables, nftables and
// ipvs), sim/route's Config, lab/apply's Settings and sim/migrate's Side
// embed it, sim/kube.NewRequest hands its flags to kube-proxy's own code,
// and a scenario's kube-proxy section gives one (scenario.KubeProxy.Config).
type Config struct {
	// Version is the kube-proxy release whose rules are written ("" is the
	// newest).
	Version KubeProxyVersion
	// LocalhostNodePortsGate is the KubeProxyNFTablesLocalhostNodePorts
	// feature gate (nftables; see sim/render/nftables
	// Options.LocalhostNodePortsGate). Releases without the gate ignore it.
	LocalhostNodePortsGate bool
	// Flags are kube-proxy's flags that change the rules.
	Flags Flags
	// IPVSScheduler is --ipvs-scheduler ("" is rr).
	IPVSScheduler string
	// Host is what kube-proxy finds on the node.
	Host HostFacts
}

// Flags are the kube-proxy flags that change the rules it writes (the zero
// value is kube-proxy's default).
type Flags struct {
	// MasqueradeAll is --masquerade-all.
	MasqueradeAll bool
	// NodePortAddresses is --nodeport-addresses as CIDRs (empty: every
	// local address); NodePortPrimary is its special value "primary" (the
	// node IPs).
	NodePortAddresses []netip.Prefix
	NodePortPrimary   bool
	// NoLocalhostNodePorts is --iptables-localhost-nodeports=false.
	NoLocalhostNodePorts bool
}

// Clone returns f with its own copy of NodePortAddresses.
func (f Flags) Clone() Flags {
	f.NodePortAddresses = slices.Clone(f.NodePortAddresses)
	return f
}

// HostFacts are what kube-proxy probes on its node and writes differently
// by. The zero value is a current host: iptables with --random-fully, no
// nfacct match, conntrack not liberal, no node addresses besides the
// model's node IP.
type HostFacts struct {
	// NoRandomFully: the iptables binary lacks --random-fully (before
	// 1.6.2); kube-proxy then writes MASQUERADE without it where the
	// release leaves it to the host.
	NoRandomFully bool
	// NFAcct: the kernel has the xt_nfacct match, so kube-proxy adds its
	// nfacct counters (iptables mode).
	NFAcct bool
	// ConntrackLiberal: nf_conntrack_tcp_be_liberal is set, so kube-proxy
	// omits the KUBE-FORWARD INVALID drop (iptables mode).
	ConntrackLiberal bool
	// NodeIPs are the node's local addresses besides the model's node IP
	// (IPVS mode: where NodePort virtual servers listen).
	NodeIPs []netip.Addr
}
