package iptables

import "github.com/svclab/svclab/sim/render"

// Options are the version, flags and host facts that change what
// kube-proxy writes (OptionsFor derives them from a render.Config).
// DefaultOptions gives those of a current kube-proxy with its default
// flags on a kernel without the nfacct match.
type Options struct {
	// Version is the kube-proxy release written ("" is the newest). The
	// iptables rules of v1.35 and v1.37 differ only in --random-fully,
	// which v1.37 always writes.
	Version render.KubeProxyVersion
	// NFAcct adds kube-proxy's nfacct counters (the kernel must have the
	// xt_nfacct match and the counter objects must exist): on the
	// KUBE-FORWARD INVALID drop, and, when localhost NodePorts are on
	// (IPv4), a `-d 127.0.0.0/8 ... -m nfacct --nfacct-name
	// localhost_nps_accepted_pkts` KUBE-NODEPORTS rule before each node
	// port's own.
	NFAcct bool
	// Flags are kube-proxy's --masquerade-all, --nodeport-addresses and
	// --iptables-localhost-nodeports.
	Flags render.Flags
	// RandomFully adds --random-fully to the MASQUERADE rule (kube-proxy
	// v1.35 does when iptables supports it; v1.37 always does).
	RandomFully bool
	// LargeClusterThreshold: above this many endpoints in total, endpoint
	// comments are dropped (kube-proxy's largeClusterEndpointsThreshold).
	LargeClusterThreshold int
	// ConntrackLiberal omits the KUBE-FORWARD INVALID drop rule, as
	// kube-proxy does when nf_conntrack_tcp_be_liberal is set.
	ConntrackLiberal bool
}

// DefaultOptions returns kube-proxy's defaults.
func DefaultOptions() Options {
	return Options{RandomFully: true, LargeClusterThreshold: 1000}
}
