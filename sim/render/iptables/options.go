package iptables

// Options are the host- and flag-dependent choices kube-proxy makes while
// rendering. DefaultOptions gives those of a current kube-proxy on a kernel
// without the nfacct match.
type Options struct {
	// NFAcct adds kube-proxy's nfacct counters (the kernel must have the
	// xt_nfacct match and the counter objects must exist).
	NFAcct bool
	// RandomFully adds --random-fully to the MASQUERADE rule.
	RandomFully bool
	// LocalhostNodePorts is kube-proxy's --iptables-localhost-nodeports
	// (default true): it adds KUBE-FIREWALL and leaves the nodeports tail
	// rule without `! -d 127.0.0.0/8`.
	LocalhostNodePorts bool
	// LargeClusterThreshold: above this many endpoints in total, endpoint
	// comments are dropped (kube-proxy's largeClusterEndpointsThreshold).
	LargeClusterThreshold int
	// ConntrackLiberal omits the KUBE-FORWARD INVALID drop rule, as
	// kube-proxy does when nf_conntrack_tcp_be_liberal is set.
	ConntrackLiberal bool
}

// DefaultOptions returns kube-proxy's defaults.
func DefaultOptions() Options {
	return Options{RandomFully: true, LocalhostNodePorts: true, LargeClusterThreshold: 1000}
}
