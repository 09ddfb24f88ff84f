package render

import "net/netip"

// Config is one kube-proxy's configuration as svclab models it where it
// changes the rules: the release, the feature gates, the IPVS scheduler and
// the host facts kube-proxy probes. The zero value is the newest release
// with its defaults on a current host.
//
// It is the carrier the others derive from: each renderer's options
// (OptionsFor in sim/render/iptables, nftables and ipvs), sim/route's
// Config and lab/apply's Settings embed it, and a scenario's kube-proxy
// section gives one (scenario.KubeProxy.Config). The flags that change the
// rules, --masquerade-all, --nodeport-addresses and
// --iptables-localhost-nodeports, are still the model's
// (model.Cluster.Proxy), where the renderers, the Kubernetes codec and
// sim/migrate read them.
type Config struct {
	// Version is the kube-proxy release whose rules are written ("" is the
	// newest).
	Version KubeProxyVersion
	// LocalhostNodePortsGate is the KubeProxyNFTablesLocalhostNodePorts
	// feature gate (nftables; see sim/render/nftables
	// Options.LocalhostNodePortsGate). Releases without the gate ignore it.
	LocalhostNodePortsGate bool
	// IPVSScheduler is --ipvs-scheduler ("" is rr).
	IPVSScheduler string
	// Host is what kube-proxy finds on the node.
	Host HostFacts
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
