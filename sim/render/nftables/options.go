package nftables

import (
	"github.com/svclab/svclab/sim/render"
)

// Options are the kube-proxy settings that change the nftables transaction
// and are not part of the model (OptionsFor derives them from a
// render.Config), and how the script is loaded.
type Options struct {
	// Version is the kube-proxy release whose layout is written: "" or
	// render.KubeProxy137 for the v1.36+ layout, render.KubeProxy135 for
	// the per-endpoint-chain layout of v1.35 and earlier.
	Version render.KubeProxyVersion
	// Flags are kube-proxy's --masquerade-all and --nodeport-addresses
	// (--iptables-localhost-nodeports is iptables mode's).
	Flags render.Flags
	// SkipBaseChainReset leaves out the "add chain X" + "delete chain X" pair
	// for each base chain that kube-proxy writes only on its first full sync
	// after it starts (to let base-chain properties change).
	SkipBaseChainReset bool
	// FlushContainers flushes kube-proxy's element sets and maps (six; seven
	// with hairpin-connections in the v1.36+ layout) before the
	// services' elements are added, so that loading the script over an older
	// table leaves no stale elements. kube-proxy itself does this only when
	// it cannot list the existing elements.
	FlushContainers bool
	// LocalhostNodePortsGate is v1.37's KubeProxyNFTablesLocalhostNodePorts
	// feature gate (alpha, off by default): localhost NodePort traffic is
	// counted and rejected (for every protocol, or for UDP and SCTP when
	// --nodeport-addresses names loopback and kube-proxy's userspace proxy
	// serves TCP). kube-proxy's TestOverallNFTablesRules runs with it on.
	// Versions without the gate (render.KubeProxyRelease's
	// NFTablesLocalhostNodePorts) ignore it.
	LocalhostNodePortsGate bool
}
