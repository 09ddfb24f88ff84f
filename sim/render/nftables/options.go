package nftables

import (
	"net/netip"

	"github.com/svclab/svclab/sim/render"
)

// Options are the kube-proxy settings that change the nftables transaction.
type Options struct {
	// Version is the kube-proxy release whose layout is written: "" or
	// render.KubeProxy137 for the v1.36+ layout, render.KubeProxy135 for
	// the per-endpoint-chain layout of v1.35 and earlier.
	Version render.KubeProxyVersion
	// NodePortAddresses are the node IPs that accept NodePort traffic
	// (kube-proxy's --nodeport-addresses, resolved). Empty means every local
	// address except loopback: the "fib daddr type local" form, and the
	// nodeport-ips set is added and deleted again, as kube-proxy does.
	NodePortAddresses []netip.Addr
	// MasqueradeAll masquerades every packet to a ClusterIP
	// (--masquerade-all) instead of only those from outside the cluster CIDR.
	MasqueradeAll bool
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
}

// matchAllNodePorts reports whether NodePorts are accepted on every local
// address.
func (o Options) matchAllNodePorts() bool { return len(o.NodePortAddresses) == 0 }
