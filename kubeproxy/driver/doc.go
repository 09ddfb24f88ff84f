// Package driver runs kube-proxy's own proxiers (k8s.io/kubernetes
// pkg/proxy/iptables, nftables and ipvs) as a library, for svclab.
//
// A Driver is built from a kube.Request (sim/kube): it constructs the
// proxier with kube-proxy's NewProxier, feeds it the request's Services
// and EndpointSlices, runs the first (full) sync, then applies each Step's
// events and syncs again, reporting every sync as a kube.Sync.
//
// Two ways to run: Render programs nothing. The iptables, ipset and IPVS
// interfaces are record-only or in-memory fakes, and the members that
// NewProxier wires to the host without an injection point (conntrack,
// nfacct, the service health server, the network interfacer, the netlink
// handle, the knftables interface) are replaced after construction, by
// reflection on unexported fields (see setField: a renamed field fails
// loudly). Sync uses the real tools exactly as kube-proxy does and is meant
// to run inside a lab network namespace.
//
// The kube-proxy version is chosen at build time: go.mod pins v1.37, and
// go.135.mod with the build tag kp135 pins v1.35 (glue_137.go and
// glue_135.go hold the version-specific NewProxier calls).
package driver
