package nftables

import "github.com/svclab/svclab/sim/render"

// releaseFacts are the facts of a kube-proxy release (its
// render.KubeProxyRelease row) that the nftables renderer reads.
type releaseFacts struct {
	// direct is NFTablesDirectDNAT (v1.36+): DNAT in the service chain,
	// hairpin-connections, no mark-for-masquerade chain.
	direct bool
	// localhostObjects is NFTablesLocalhostNodePorts (v1.37+): the
	// localhost-nodeport-reject-* objects exist.
	localhostObjects bool
	// dnatTo is NFTablesDNATToSingleEndpoint (v1.37+): one endpoint is
	// DNATed with `dnat to IP:PORT`, not a numgen map of one.
	dnatTo bool
	// truncateComments is NFTablesTruncatedComments (v1.37+): element
	// comments are cut to knftables' CommentLengthMax.
	truncateComments bool
}

// factsOf returns the facts of v's row.
func factsOf(v render.KubeProxyVersion) releaseFacts {
	r := v.Release()
	return releaseFacts{direct: r.NFTablesDirectDNAT, localhostObjects: r.NFTablesLocalhostNodePorts,
		dnatTo: r.NFTablesDNATToSingleEndpoint, truncateComments: r.NFTablesTruncatedComments}
}
