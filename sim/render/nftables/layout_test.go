package nftables

import "github.com/svclab/svclab/sim/render"

// layout is the oldest supported version whose nftables facts (factsOf)
// equal v's. Versions of one layout write the same transactions, so the
// golden directories (testdata/v<layout>) and the per-version expectations
// of these tests are keyed by it: a new version with the facts of an
// older one needs none of its own.
func layout(v render.KubeProxyVersion) render.KubeProxyVersion {
	for _, o := range render.KubeProxyVersions {
		if factsOf(o) == factsOf(v) {
			return o
		}
	}
	return v.OrLatest()
}
